import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Creating, fetching, updating and deleting objects under both version prefixes.
@Suite struct ObjectTests {
    static let prefixes = ["1.1", "1"]
    static let publicACL: JSONValue = ["*": ["read": true, "write": true]]

    @Test(arguments: prefixes)
    func createAnswers201WithIdDateAndLocation(prefix: String) async throws {
        try await TestServer.run { api in
            let reply = try await api.post("/\(prefix)/classes/Todo", ["title": "Buy milk", "priority": 2])
            #expect(reply.status == .created)
            let body = try #require(reply.json?.objectValue, "\(reply)")
            #expect(Set(body.keys) == ["objectId", "createdAt"])
            let id = try #require(body["objectId"]?.stringValue)
            #expect(isObjectId(id), "\(id)")
            #expect(isCanonicalISODate(body["createdAt"]?.stringValue))
            #expect(reply.header("Location") == "/\(prefix)/classes/Todo/\(id)")
            #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
        }
    }

    @Test(arguments: prefixes)
    func getReturnsEveryFieldWithBuiltInsAndACL(prefix: String) async throws {
        try await TestServer.run { api in
            let created = try await api.post("/\(prefix)/classes/Todo", ["title": "Buy milk", "priority": 2, "done": false])
            let id = try #require(created.objectId)
            let reply = try await api.get("/\(prefix)/classes/Todo/\(id)")
            #expect(reply.status == .ok)
            #expect(
                reply.json
                    == .object([
                        "title": "Buy milk", "priority": 2, "done": false, "objectId": .string(id),
                        "createdAt": created["createdAt"]!, "updatedAt": created["createdAt"]!, "ACL": Self.publicACL,
                    ]))
        }
    }

    @Test func idsAreUnique() async throws {
        try await TestServer.run { api in
            var ids: Set<String> = []
            for index in 0..<20 { ids.insert(try await api.create("Todo", ["n": .int(Int64(index))])) }
            #expect(ids.count == 20)
            #expect(try await api.count("Todo") == 20)
        }
    }

    @Test func anExplicitACLIsKept() async throws {
        try await TestServer.run { api in
            let acl: JSONValue = ["*": ["read": true], "role:Admin": ["read": true, "write": true]]
            let id = try await api.create("Todo", ["title": "x", "ACL": acl])
            #expect(try await api.fetch("Todo", id)["ACL"] == acl)
        }
    }

    @Test(arguments: prefixes)
    func getOfAMissingIdInAKnownClassIsAnEmptyObject(prefix: String) async throws {
        try await TestServer.run { api in
            _ = try await api.create("Todo", ["title": "x"])
            let reply = try await api.get("/\(prefix)/classes/Todo/000000000000000000000000")
            #expect(reply.status == .ok)
            #expect(reply.text == "{}")
        }
    }

    @Test(arguments: prefixes)
    func getInAClassNeverWrittenIs404With101(prefix: String) async throws {
        try await TestServer.run { api in
            expectError(try await api.get("/\(prefix)/classes/Ghost/000000000000000000000000"), code: 101, status: .notFound)
            expectError(try await api.get("/\(prefix)/classes/Ghost"), code: 101, status: .notFound)
        }
    }

    @Test(arguments: prefixes)
    func putUpdatesOnlyTheGivenFields(prefix: String) async throws {
        try await TestServer.run { api in
            let created = try await api.post("/\(prefix)/classes/Todo", ["title": "a", "priority": 1])
            let id = try #require(created.objectId)
            let createdAt = try #require(created["createdAt"]?.stringValue)
            let reply = try await api.put("/\(prefix)/classes/Todo/\(id)", ["priority": 5, "note": "new"])
            #expect(reply.status == .ok)
            let body = try #require(reply.json?.objectValue, "\(reply)")
            let updatedAt = try #require(body["updatedAt"]?.stringValue)
            #expect(isCanonicalISODate(updatedAt))
            #expect(updatedAt >= createdAt)
            // The answer names the object and the time; it doesn't echo fields.
            #expect(body["title"] == nil && body["priority"] == nil && body["note"] == nil)

            let object = try await api.fetch("Todo", id)
            #expect(object["title"] == "a")
            #expect(object["priority"] == 5)
            #expect(object["note"] == "new")
            #expect(object["createdAt"] == .string(createdAt))
            #expect(object["updatedAt"] == .string(updatedAt))
            #expect(object["ACL"] == Self.publicACL)
        }
    }

    @Test(arguments: prefixes)
    func putWithFetchWhenSaveReturnsTheChangedFields(prefix: String) async throws {
        try await TestServer.run { api in
            let id = try await api.create("Todo", ["title": "a", "count": 1, "tags": ["x"]])
            let reply = try await api.put(
                "/\(prefix)/classes/Todo/\(id)?fetchWhenSave=true",
                ["count": op("Increment", ["amount": 2]), "tags": op("Add", ["objects": ["y"]])])
            #expect(reply.status == .ok)
            #expect(reply["count"] == 3)
            #expect(reply["tags"] == ["x", "y"])
            #expect(reply["title"] == nil, "unchanged fields are not returned: \(reply)")
            #expect(isCanonicalISODate(reply["updatedAt"]?.stringValue))

            // The flag may also ride in the body, where it is not stored.
            let inBody = try await api.put("/\(prefix)/classes/Todo/\(id)", ["count": op("Increment"), "fetchWhenSave": true])
            #expect(inBody.status == .ok)
            #expect(inBody["count"] == 4)
            #expect(try await api.fetch("Todo", id)["fetchWhenSave"] == nil)
        }
    }

    @Test(arguments: prefixes)
    func postWithFetchWhenSaveReturnsTheWholeObject(prefix: String) async throws {
        try await TestServer.run { api in
            let reply = try await api.post(
                "/\(prefix)/classes/Todo?fetchWhenSave=true", ["title": "a", "count": op("Increment", ["amount": 7])])
            #expect(reply.status == .created)
            let id = try #require(reply.objectId)
            #expect(reply["title"] == "a")
            #expect(reply["count"] == 7)
            #expect(reply["ACL"] == Self.publicACL)
            #expect(reply["createdAt"] != nil && reply["createdAt"] == reply["updatedAt"])
            #expect(reply.header("Location") == "/\(prefix)/classes/Todo/\(id)")
            let fetched = try await api.fetch("Todo", id)
            #expect(reply.json == fetched)
        }
    }

    @Test(arguments: prefixes)
    func deleteAnswersEmptyObjectAndTheObjectIsGone(prefix: String) async throws {
        try await TestServer.run { api in
            let id = try await api.create("Todo", ["title": "a"])
            let other = try await api.create("Todo", ["title": "b"])
            let reply = try await api.delete("/\(prefix)/classes/Todo/\(id)")
            #expect(reply.status == .ok)
            #expect(reply.text == "{}")
            #expect(try await api.get("/\(prefix)/classes/Todo/\(id)").text == "{}")
            #expect(try await api.results("Todo").map { $0["objectId"] } == [.string(other)])
            // Deleting again succeeds: SDKs replay deletes.
            let again = try await api.delete("/\(prefix)/classes/Todo/\(id)")
            #expect(again.status == .ok)
            #expect(again.text == "{}")
        }
    }

    @Test func putOnAMissingObjectIs404With101() async throws {
        try await TestServer.run { api in
            _ = try await api.create("Todo", ["title": "a"])
            expectError(try await api.put("/1.1/classes/Todo/000000000000000000000000", ["title": "b"]), code: 101, status: .notFound)
            expectError(try await api.put("/1.1/classes/Ghost/000000000000000000000000", ["title": "b"]), code: 101, status: .notFound)
            #expect(try await api.count("Todo") == 1)
            #expect(try await api.count("Ghost") == nil)
        }
    }

    @Test func keysSelectOrExcludeFieldsOfAFetch() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Todo", ["title": "a", "priority": 1, "note": "n"])
            let selected = try #require(try await api.fetch("Todo", id, ["keys": "title,priority"]).objectValue)
            #expect(Set(selected.keys) == ["title", "priority", "objectId", "createdAt", "updatedAt"])
            #expect(selected["title"] == "a")

            let excluded = try #require(try await api.fetch("Todo", id, ["keys": "-note"]).objectValue)
            #expect(Set(excluded.keys) == ["title", "priority", "ACL", "objectId", "createdAt", "updatedAt"])
        }
    }

    @Test func includeReplacesAPointerWithTheObject() async throws {
        try await TestServer.run { api in
            let authorId = try await api.create("Author", ["name": "Ada"])
            _ = try await api.fetch("Author", authorId)
            let bookId = try await api.create("Book", ["title": "Notes", "author": pointer("Author", authorId)])

            let plain = try await api.fetch("Book", bookId)
            #expect(plain["author"] == pointer("Author", authorId))

            let included = try await api.fetch("Book", bookId, ["include": "author"])
            let author = try #require(included["author"])
            #expect(author["__type"] == "Object")
            #expect(author["className"] == "Author")
            #expect(author["objectId"] == .string(authorId))
            #expect(author["name"] == "Ada")
            #expect(isCanonicalISODate(author["createdAt"]?.stringValue))
        }
    }

    @Test func includeLeavesAPointerToADeletedObjectAsAPointer() async throws {
        try await TestServer.run { api in
            let authorId = try await api.create("Author", ["name": "Ada"])
            _ = try await api.fetch("Author", authorId)
            let bookId = try await api.create("Book", ["author": pointer("Author", authorId)])
            _ = try await api.delete("/1.1/classes/Author/\(authorId)")
            #expect(try await api.fetch("Book", bookId, ["include": "author"])["author"] == pointer("Author", authorId))
        }
    }

    @Test func tunneledMethodsInAPostBody() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Todo", ["title": "a"])
            let put = try await api.post("/1.1/classes/Todo/\(id)", ["_method": "PUT", "title": "b"])
            #expect(put.status == .ok, "\(put)")
            let fetched = try await api.post("/1.1/classes/Todo/\(id)", ["_method": "GET"])
            #expect(fetched["title"] == "b")
            #expect(fetched["_method"] == nil)
            let without = try await api.post("/1.1/classes/Todo/\(id)", ["title": "c"])
            #expect((400..<500).contains(without.status.code), "\(without)")
            #expect(without["code"] == 107)
            let deleted = try await api.post("/1.1/classes/Todo/\(id)", ["_method": "DELETE"])
            #expect(deleted.status == .ok)
            #expect(try await api.get("/1.1/classes/Todo/\(id)").text == "{}")
        }
    }

    @Test func anEmptyBodyCreatesAnEmptyObject() async throws {
        try await TestServer.run { api in
            let reply = try await api.send(.post, "/1.1/classes/Todo")
            #expect(reply.status == .created, "\(reply)")
            let id = try #require(reply.objectId)
            let object = try #require(try await api.fetch("Todo", id).objectValue)
            #expect(Set(object.keys) == ["objectId", "createdAt", "updatedAt", "ACL"])
        }
    }

    @Test func bothPrefixesShareTheSameData() async throws {
        try await TestServer.run { api in
            let created = try await api.post("/1/classes/Todo", ["title": "old prefix"])
            let id = try #require(created.objectId)
            #expect(try await api.get("/1.1/classes/Todo/\(id)")["title"] == "old prefix")
            _ = try await api.put("/1.1/classes/Todo/\(id)", ["title": "new prefix"])
            #expect(try await api.get("/1/classes/Todo/\(id)")["title"] == "new prefix")
        }
    }

    @Test func classNamesAreCaseSensitive() async throws {
        try await TestServer.run { api in
            _ = try await api.create("Todo", ["title": "upper"])
            _ = try await api.create("todo", ["title": 1])
            #expect(try await api.results("Todo").map { $0["title"] } == ["upper"])
            #expect(try await api.results("todo").map { $0["title"] } == [1])
            #expect(try await api.count("TODO") == nil)
        }
    }

    @Test func fetchWhenSaveInBothTheQueryAndTheBody() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Todo", ["title": "a"])
            let update = try await api.put("/1.1/classes/Todo/\(id)?fetchWhenSave=true", ["title": "b", "fetchWhenSave": true])
            let create = try await api.post("/1.1/classes/Todo?fetchWhenSave=true", ["title": "c", "fetchWhenSave": true])
            #expect(update.status == .ok, "\(update)")
            #expect(create.status == .created, "\(create)")
        }
    }

    @Test func aPointerToAClassCreatedByItsFirstWriteIsAccepted() async throws {
        try await TestServer.run { api in
            // The target class exists after one write, with nothing else touching it.
            let authorId = try await api.create("Author", ["name": "Ada"])
            let reply = try await api.post("/1.1/classes/Book", ["author": pointer("Author", authorId)])
            // (The class's first write must enter it in the catalog that pointer checks consult.)
            #expect(reply.status == .created, "\(reply)")
            let bookId = try #require(reply.objectId)
            #expect(try await api.fetch("Book", bookId)["author"] == pointer("Author", authorId))
        }
    }
}
