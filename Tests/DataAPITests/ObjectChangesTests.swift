import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("Parsing request bodies into changes")
struct ObjectChangesTests {
    @Test("Plain values become .set with their normalized form")
    func plainSets() throws {
        let parsed = try changes(["title": "Hello", "n": 1, "when": date("2020-01-01T08:00:00+08:00")])
        #expect(parsed.fields["title"] == .set("Hello"))
        #expect(parsed.fields["n"] == .set(1))
        #expect(parsed.fields["when"] == .set(date("2020-01-01T00:00:00.000Z")))
        #expect(parsed.fields.count == 3)
    }

    @Test("Delete")
    func delete() throws {
        #expect(try changes(["f": ["__op": "Delete"]]).fields["f"] == .delete)
    }

    @Test("Increment and Decrement, with an int, a double or the default amount")
    func incrementDecrement() throws {
        let parsed = try changes([
            "a": ["__op": "Increment", "amount": 5],
            "b": ["__op": "Increment", "amount": 0.5],
            "c": ["__op": "Increment"],
            "d": ["__op": "Decrement", "amount": 3],
            "e": ["__op": "Decrement", "amount": 1.25],
            "f": ["__op": "Decrement"],
        ])
        #expect(parsed.fields["a"] == .increment(5))
        #expect(parsed.fields["b"] == .increment(0.5))
        #expect(parsed.fields["c"] == .increment(1))
        #expect(parsed.fields["d"] == .increment(-3))
        #expect(parsed.fields["e"] == .increment(-1.25))
        #expect(parsed.fields["f"] == .increment(-1))
    }

    @Test("Increment by a non-number throws 111", arguments: [JSONValue.string("1"), true, nil, [1], ["n": 1]])
    func incrementNonNumber(amount: JSONValue) {
        expectDataAPIError(111) { _ = try changes(["n": ["__op": "Increment", "amount": amount]]) }
        expectDataAPIError(111) { _ = try changes(["n": ["__op": "Decrement", "amount": amount]]) }
    }

    @Test("Add, AddUnique and Remove take a normalized objects array")
    func arrayOperations() throws {
        let parsed = try changes([
            "a": ["__op": "Add", "objects": [1, date("2020-01-01T00:00:00Z")]],
            "u": ["__op": "AddUnique", "objects": ["x", "y"]],
            "r": ["__op": "Remove", "objects": [["k": 1]]],
        ])
        #expect(parsed.fields["a"] == .add([1, date("2020-01-01T00:00:00.000Z")]))
        #expect(parsed.fields["u"] == .addUnique(["x", "y"]))
        #expect(parsed.fields["r"] == .remove([["k": 1]]))
    }

    @Test("Array operations without an objects array throw 111", arguments: ["Add", "AddUnique", "Remove"])
    func arrayOperationWithoutObjects(op: String) {
        expectDataAPIError(111) { _ = try changes(["a": ["__op": .string(op)]]) }
        expectDataAPIError(111) { _ = try changes(["a": ["__op": .string(op), "objects": "x"]]) }
    }

    @Test("Array operation elements are checked like values")
    func arrayOperationElementsChecked() {
        expectDataAPIError(121) { _ = try changes(["a": ["__op": "Add", "objects": [["$bad": 1]]]]) }
        expectDataAPIError(106) { _ = try changes(["a": ["__op": "Add", "objects": [pointer("Nobody", "1")]]]) }
    }

    @Test("AddRelation and RemoveRelation collect the pointers' class and ids")
    func relations() throws {
        let parsed = try changes(
            [
                "likes": ["__op": "AddRelation", "objects": [pointer("Author", "a1"), pointer("Author", "a2")]],
                "blocked": ["__op": "RemoveRelation", "objects": [pointer("Author", "a3")]],
            ], knowing: ["Author"])
        #expect(parsed.fields["likes"] == .addRelation(className: "Author", ids: ["a1", "a2"]))
        #expect(parsed.fields["blocked"] == .removeRelation(className: "Author", ids: ["a3"]))
    }

    @Test("Malformed relation operations throw 128")
    func badRelations() {
        let known: Set<String> = ["Author", "Post"]
        expectDataAPIError(128) { _ = try changes(["r": ["__op": "AddRelation", "objects": []]], knowing: known) }
        expectDataAPIError(128) { _ = try changes(["r": ["__op": "AddRelation"]], knowing: known) }
        expectDataAPIError(128) { _ = try changes(["r": ["__op": "AddRelation", "objects": [1]]], knowing: known) }
        expectDataAPIError(128) {
            _ = try changes(
                ["r": ["__op": "AddRelation", "objects": [pointer("Author", "a"), pointer("Post", "p")]]],
                knowing: known)
        }
        let tooMany = JSONValue.array((0..<1001).map { pointer("Author", "a\($0)") })
        expectDataAPIError(128) {
            _ = try changes(["r": ["__op": "RemoveRelation", "objects": tooMany]], knowing: known)
        }
        // A pointer to an unknown class is a pointer error first.
        expectDataAPIError(106) { _ = try changes(["r": ["__op": "AddRelation", "objects": [pointer("X", "1")]]]) }
    }

    @Test("BitAnd, BitOr and BitXor need an integer value")
    func bitOperations() throws {
        let parsed = try changes([
            "a": ["__op": "BitAnd", "value": 6], "o": ["__op": "BitOr", "value": 1], "x": ["__op": "BitXor", "value": -1],
        ])
        #expect(parsed.fields["a"] == .bitAnd(6))
        #expect(parsed.fields["o"] == .bitOr(1))
        #expect(parsed.fields["x"] == .bitXor(-1))
        expectDataAPIError(111) { _ = try changes(["a": ["__op": "BitAnd", "value": 1.5]]) }
        expectDataAPIError(111) { _ = try changes(["a": ["__op": "BitOr"]]) }
        expectDataAPIError(111) { _ = try changes(["a": ["__op": "BitXor", "value": "1"]]) }
    }

    @Test("Unknown or non-string __op throws 111", arguments: [JSONValue.string("Multiply"), "increment", "", 1, nil])
    func unknownOperation(op: JSONValue) {
        expectDataAPIError(111) { _ = try changes(["n": ["__op": op]]) }
    }

    @Test("Typed values at the top level are checked")
    func typedValueErrors() {
        expectDataAPIError(106) { _ = try changes(["author": pointer("Nobody", "x")]) }
        expectDataAPIError(302) {
            _ = try changes(["at": ["__type": "GeoPoint", "latitude": 100, "longitude": 0]])
        }
        expectDataAPIError(111) { _ = try changes(["x": ["__type": "Mystery"]]) }
        expectDataAPIError(121) { _ = try changes(["meta": ["a": ["b$": 1]]]) }
        expectDataAPIError(111) { _ = try changes(["bin": ["__type": "Bytes", "base64": "%%%"]]) }
    }

    @Test("A typed value with a known class passes")
    func typedValues() throws {
        let parsed = try changes(
            ["author": pointer("Author", "a1"), "bin": ["__type": "Bytes", "base64": "AQID"]], knowing: ["Author"])
        #expect(parsed.fields["author"] == .set(pointer("Author", "a1")))
        #expect(parsed.fields["bin"] == .set(["__type": "Bytes", "base64": "AQID"]))
    }

    @Test("ACL is validated and stored as given")
    func acl() throws {
        let acl: JSONValue = ["*": ["read": true], "u1": ["write": true]]
        #expect(try changes(["ACL": acl]).fields["ACL"] == .set(acl))
        expectDataAPIError(123) { _ = try changes(["ACL": ["*": ["read": "yes"]]]) }
        expectDataAPIError(123) { _ = try changes(["ACL": "public"]) }
        expectDataAPIError(123) { _ = try changes(["ACL": ["*": ["admin": true]]]) }
    }

    @Test("Built-in fields can't be written: 105", arguments: ["objectId", "createdAt", "updatedAt"])
    func builtInKeys(key: String) {
        let error = expectDataAPIError(105) { _ = try changes([key: "x"]) }
        #expect(error?.message.contains("built-in") == true)
    }

    @Test(
        "Reserved and malformed keys throw 105",
        arguments: ["__private", "__type", "a.b", "a$b", "a-b", "", "$inc"])
    func reservedKeys(key: String) {
        expectDataAPIError(105) { _ = try changes([key: 1]) }
    }

    @Test("Hook control keys are skipped, not stored")
    func hookKeysSkipped() throws {
        let parsed = try changes(["__ignore_hooks": ["beforeSave"], "__before": "x", "__after": "y", "t": 1])
        #expect(parsed.fields == ["t": .set(1)])
    }

    @Test("A single-underscore key that is not a valid name is rejected with 105")
    func malformedUnderscoreKeyRejected() {
        expectDataAPIError(105) { _ = try changes(["_weird-key": 1, "t": 1]) }
    }

    /// `_method`, `_ApplicationId`, `_MasterKey`, ... are transport fields: never stored, so a
    /// text/plain body's keys can't end up in an object.
    @Test("Transport fields such as _ApplicationId are skipped, as documented")
    func transportKeysSkipped() throws {
        let parsed = try changes([
            "_method": "PUT", "_ApplicationId": "app", "_ApplicationKey": "key", "_MasterKey": "secret", "t": 1,
        ])
        #expect(parsed.fields == ["t": .set(1)])
    }

    /// Negating Int64.min overflows; the amount becomes a double instead of trapping.
    @Test("Decrement by Int64.min is handled without crashing")
    func decrementByInt64Min() throws {
        let body: [String: JSONValue] = ["n": ["__op": "Decrement", "amount": .int(.min)]]
        let parsed = try ObjectChanges(body: body, normalizer: ValueNormalizer(classExists: { _ in false }))
        #expect(parsed.fields["n"] == .increment(.double(9_223_372_036_854_775_808)))
    }

    @Test("An empty body makes no changes")
    func emptyBody() throws {
        #expect(try changes([:]).fields.isEmpty)
        #expect(ObjectChanges().fields.isEmpty)
    }
}
