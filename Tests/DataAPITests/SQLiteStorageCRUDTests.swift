import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("SQLite storage: create, fetch, update, delete")
struct SQLiteStorageCRUDTests {
    let db: SQLiteTestDatabase
    var storage: SQLiteStorage { db.storage }

    init() throws {
        db = try SQLiteTestDatabase()
    }

    @Test("create returns the object with an id, timestamps and the default ACL")
    func create() async throws {
        let before = ObjectID.currentMilliseconds()
        let object = try await storage.create("Post", changes: sets(["title": "Hello", "n": 1]))
        let after = ObjectID.currentMilliseconds()
        #expect(object.className == "Post")
        #expect(object.objectId.count == 24)
        #expect(object.objectId.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(object.createdAt == object.updatedAt)
        let created = try #require(ISODate.milliseconds(from: object.createdAt))
        #expect((before...after).contains(created))
        #expect(object.fields == ["title": "Hello", "n": 1, "ACL": ACL.publicReadWrite])
    }

    @Test("fetch returns exactly what create returned")
    func fetchAfterCreate() async throws {
        let created = try await storage.create(
            "Post",
            changes: sets([
                "s": "é😀\n", "i": .int(.max), "d": 0.1, "b": false, "a": [1, [2], ["k": nil]],
                "o": ["x": ["y": "z"]], "when": date("2020-02-29T12:00:00.000Z"),
            ]))
        let fetched = try await storage.fetch("Post", id: created.objectId)
        #expect(fetched == created)
    }

    @Test("An explicit ACL replaces the default one")
    func explicitACL() async throws {
        let acl: JSONValue = ["u1": ["read": true, "write": true]]
        let object = try await storage.create("Post", changes: changes(["ACL": acl]))
        #expect(object.fields["ACL"] == acl)
        #expect(try await storage.fetch("Post", id: object.objectId)?.fields["ACL"] == acl)
    }

    @Test("fetch of a missing object or class is nil")
    func fetchMissing() async throws {
        #expect(try await storage.fetch("Nothing", id: "x") == nil)
        _ = try await storage.create("Post", changes: sets(["t": 1]))
        #expect(try await storage.fetch("Post", id: "000000000000000000000000") == nil)
    }

    @Test("fetch(ids:) returns the objects that exist")
    func fetchMany() async throws {
        var ids: [String] = []
        for index in 0..<5 { ids.append(try await storage.create("Post", changes: sets(["i": .int(Int64(index))])).objectId) }
        let fetched = try await storage.fetch("Post", ids: [ids[0], "missing", ids[3], ids[3]])
        #expect(Set(fetched.map(\.objectId)) == [ids[0], ids[3]])
        #expect(fetched.count == 2)
        #expect(try await storage.fetch("Post", ids: []).isEmpty)
        #expect(try await storage.fetch("Nothing", ids: ids).isEmpty)
    }

    @Test("fetch(ids:) handles more ids than one statement binds")
    func fetchManyBatches() async throws {
        let object = try await storage.create("Post", changes: sets(["t": 1]))
        let ids = (0..<1200).map { "missing\($0)" } + [object.objectId]
        let fetched = try await storage.fetch("Post", ids: ids)
        #expect(fetched.map(\.objectId) == [object.objectId])
    }

    @Test("Ids are unique")
    func uniqueIds() async throws {
        var ids: Set<String> = []
        for _ in 0..<200 { ids.insert(try await storage.create("Post", changes: sets([:])).objectId) }
        #expect(ids.count == 200)
        #expect(Set((0..<1000).map { _ in ObjectID.make() }).count == 1000)
        #expect(ObjectID.randomHex(byteCount: 16).count == 32)
        #expect(ObjectID.randomHex(byteCount: 3).count == 6)
    }

    @Test("update applies changes, keeps createdAt and persists")
    func update() async throws {
        let created = try await storage.create("Post", changes: sets(["title": "a", "n": 1, "gone": true]))
        let updated = try await storage.update(
            "Post", id: created.objectId,
            changes: changes([
                "title": "b", "n": ["__op": "Increment", "amount": 2], "gone": ["__op": "Delete"], "tags": ["x"],
            ]),
            condition: nil)
        #expect(updated.objectId == created.objectId)
        #expect(updated.createdAt == created.createdAt)
        #expect(updated.updatedAt >= created.updatedAt)
        #expect(updated.fields == ["title": "b", "n": 3, "tags": ["x"], "ACL": ACL.publicReadWrite])
        #expect(try await storage.fetch("Post", id: created.objectId) == updated)
    }

    @Test("Array operations persist across updates")
    func arrayOperations() async throws {
        let id = try await storage.create("Post", changes: sets(["tags": ["a"]])).objectId
        _ = try await storage.update(
            "Post", id: id, changes: changes(["tags": ["__op": "Add", "objects": ["b", "a"]]]), condition: nil)
        _ = try await storage.update(
            "Post", id: id, changes: changes(["tags": ["__op": "AddUnique", "objects": ["b", "c"]]]), condition: nil)
        _ = try await storage.update(
            "Post", id: id, changes: changes(["tags": ["__op": "Remove", "objects": ["a"]]]), condition: nil)
        #expect(try await storage.fetch("Post", id: id)?.fields["tags"] == ["b", "c"])
    }

    @Test("Bit operations and increments on fields that don't exist yet start from zero")
    func operationsOnMissingFields() async throws {
        let id = try await storage.create("Post", changes: sets([:])).objectId
        let updated = try await storage.update(
            "Post", id: id,
            changes: changes([
                "flags": ["__op": "BitOr", "value": 5], "n": ["__op": "Decrement", "amount": 2],
                "list": ["__op": "AddUnique", "objects": [1]],
            ]),
            condition: nil)
        #expect(updated.fields["flags"] == .int(5))
        #expect(updated.fields["n"] == .int(-2))
        #expect(updated.fields["list"] == [1])
    }

    @Test("Relation operations store a Relation value and lock the field to its class")
    func relations() async throws {
        let author = try await storage.create("Author", changes: sets(["name": "Ann"]))
        let other = try await storage.create("Other", changes: sets([:]))
        let post = try await storage.create(
            "Post", changes: ObjectChanges(fields: ["likes": .addRelation(className: "Author", ids: [author.objectId])]))
        #expect(post.fields["likes"] == ["__type": "Relation", "className": "Author"])
        _ = try await storage.update(
            "Post", id: post.objectId,
            changes: ObjectChanges(fields: ["likes": .removeRelation(className: "Author", ids: [author.objectId])]),
            condition: nil)
        await expectDataAPIErrorAsync(111) {
            _ = try await storage.update(
                "Post", id: post.objectId,
                changes: ObjectChanges(fields: ["likes": .addRelation(className: "Other", ids: [other.objectId])]),
                condition: nil)
        }
        #expect(try await storage.fetch("Post", id: post.objectId)?.fields["likes"] == post.fields["likes"])
    }

    @Test("update of a missing object or class throws 101")
    func updateMissing() async throws {
        await expectDataAPIErrorAsync(101) {
            _ = try await storage.update("Nothing", id: "x", changes: sets(["a": 1]), condition: nil)
        }
        _ = try await storage.create("Post", changes: sets(["a": 1]))
        await expectDataAPIErrorAsync(101) {
            _ = try await storage.update("Post", id: "missing", changes: sets(["a": 2]), condition: nil)
        }
    }

    @Test("delete removes the object; deleting again or in a missing class succeeds")
    func delete() async throws {
        let keep = try await storage.create("Post", changes: sets(["t": "keep"]))
        let gone = try await storage.create("Post", changes: sets(["t": "gone"]))
        try await storage.delete("Post", id: gone.objectId, condition: nil)
        #expect(try await storage.fetch("Post", id: gone.objectId) == nil)
        #expect(try await storage.fetch("Post", id: keep.objectId) == keep)
        try await storage.delete("Post", id: gone.objectId, condition: nil)
        try await storage.delete("Nothing", id: "x", condition: nil)
        #expect(try await storage.count(ObjectQuery(className: "Post")) == 1)
        await expectDataAPIErrorAsync(101) {
            _ = try await storage.update("Post", id: gone.objectId, changes: sets(["t": "back"]), condition: nil)
        }
    }

    @Test("Classes exist once written; system classes always exist")
    func classExistence() async throws {
        #expect(try await storage.classExists("Post") == false)
        #expect(!storage.isKnownClass("Post"))
        _ = try await storage.create("Post", changes: sets([:]))
        #expect(try await storage.classExists("Post"))
        #expect(storage.isKnownClass("Post"))
        for name in Names.systemClasses {
            #expect(try await storage.classExists(name))
            #expect(storage.isKnownClass(name))
        }
    }

    @Test("Class names are case-sensitive")
    func caseSensitiveClasses() async throws {
        let upper = try await storage.create("Post", changes: sets(["v": "upper"]))
        let lower = try await storage.create("post", changes: sets(["v": 1]))
        #expect(try await storage.fetch("Post", id: lower.objectId) == nil)
        #expect(try await storage.fetch("post", id: upper.objectId) == nil)
        #expect(try await storage.count(ObjectQuery(className: "Post")) == 1)
        #expect(try await storage.count(ObjectQuery(className: "post")) == 1)
        #expect(try await storage.classExists("POST") == false)
    }

    @Test("restJSON adds the built-ins and can drop the ACL; pointer names the object")
    func restJSON() async throws {
        let object = try await storage.create("Post", changes: sets(["t": 1]))
        let json = object.restJSON()
        #expect(json["objectId"] == .string(object.objectId))
        #expect(json["createdAt"] == .string(object.createdAt))
        #expect(json["updatedAt"] == .string(object.updatedAt))
        #expect(json["ACL"] == ACL.publicReadWrite)
        #expect(object.restJSON(includeACL: false)["ACL"] == nil)
        #expect(object.pointer == pointer("Post", object.objectId))
    }
}
