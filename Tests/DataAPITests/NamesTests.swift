import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("Class and field names")
struct NamesTests {
    @Test(
        "Valid class names",
        arguments: ["Post", "post", "P", "Post_2", "Todo_List_Items", "A1b2", String(repeating: "a", count: 128)])
    func validClassNames(name: String) {
        #expect(Names.isValidClassName(name))
    }

    @Test("Every system class is a valid class name", arguments: ["_User", "_Role", "_File", "_Installation", "_Session"])
    func systemClasses(name: String) {
        #expect(Names.systemClasses.contains(name))
        #expect(Names.isValidClassName(name))
    }

    @Test(
        "Invalid class names",
        arguments: [
            "", "_Foo", "_user", "__User", "2Post", "Po-st", "Po st", "Po.st", "Pöst", "Post$", "_",
            String(repeating: "a", count: 129),
        ])
    func invalidClassNames(name: String) {
        #expect(!Names.isValidClassName(name))
    }

    @Test(
        "Valid field names",
        arguments: ["title", "Title", "t", "title_2", "_private", "x1", "ACL", String(repeating: "f", count: 128)])
    func validFieldNames(name: String) {
        #expect(Names.isValidFieldName(name))
    }

    @Test(
        "Reserved, built-in and malformed field names are rejected",
        arguments: [
            "", "__private", "__type", "__op", "a.b", "a$b", "$set", "a-b", "a b", "é",
            String(repeating: "f", count: 129),
        ])
    func invalidFieldNames(name: String) {
        #expect(!Names.isValidFieldName(name))
    }

    @Test("Names LeanCloud stores as ordinary fields are fields", arguments: ["id", "className", "acl", "uuid", "description", "code", "error"])
    func ordinaryFieldNames(name: String) {
        #expect(Names.isValidFieldName(name))
    }

    @Test("Every reserved name is rejected as a field", arguments: Array(Names.reservedFields))
    func reservedFieldNames(name: String) {
        #expect(!Names.isValidFieldName(name))
    }

    @Test("Built-in fields are reserved too")
    func builtInsAreReserved() {
        #expect(Names.builtInFields == ["objectId", "createdAt", "updatedAt"])
        #expect(Names.builtInFields.isSubset(of: Names.reservedFields))
    }

    @Test("Key paths: dotted segments of field characters", arguments: ["a", "a.b", "a.b.c", "_x.y_2", "objectId"])
    func validKeyPaths(path: String) {
        #expect(Names.isValidKeyPath(path))
    }

    @Test("Malformed key paths", arguments: ["", ".", "a.", ".a", "a..b", "a.$b", "a b", "a'b", "a\"b", "$or"])
    func invalidKeyPaths(path: String) {
        #expect(!Names.isValidKeyPath(path))
    }
}

@Suite("ACL validation")
struct ACLTests {
    @Test("Well-formed ACLs are returned unchanged")
    func valid() throws {
        let acls: [JSONValue] = [
            [:],
            ["*": ["read": true]],
            ["*": ["read": true, "write": false], "user1": ["write": true], "role:Admin": ["read": true, "write": true]],
            ["someone": [:]],
            ACL.publicReadWrite,
        ]
        for acl in acls {
            #expect(try ACL.validated(acl) == acl)
        }
    }

    @Test(
        "Malformed ACLs throw 123",
        arguments: [
            "null", "true", "\"*\"", "[]", #"{"*": true}"#, #"{"*": "read"}"#, #"{"": {"read": true}}"#,
            #"{"*": {"read": 1}}"#, #"{"*": {"read": "true"}}"#, #"{"*": {"delete": true}}"#,
            #"{"*": {"read": true}, "u": {"write": null}}"#,
        ])
    func invalid(text: String) throws {
        let value = try json(text)
        expectDataAPIError(123) { _ = try ACL.validated(value) }
    }

    @Test("The default ACL lets everyone read and write")
    func defaultACL() {
        #expect(ACL.publicReadWrite == ["*": ["read": true, "write": true]])
    }
}
