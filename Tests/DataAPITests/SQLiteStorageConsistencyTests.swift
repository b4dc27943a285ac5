import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("SQLite storage: schema, conditions, atomicity, limits, durability")
struct SQLiteStorageConsistencyTests {
    let db: SQLiteTestDatabase
    var storage: SQLiteStorage { db.storage }

    init() throws {
        db = try SQLiteTestDatabase()
    }

    // MARK: Schema type lock

    @Test("A field first written as a Number can't take a String (111), and nothing is written")
    func typeLockOnUpdate() async throws {
        let created = try await storage.create("Post", changes: sets(["n": 1]))
        let error = await expectDataAPIErrorAsync(111) {
            _ = try await storage.update(
                "Post", id: created.objectId, changes: sets(["n": "one", "other": "x"]), condition: nil)
        }
        #expect(error?.message.contains("expected Number, got String") == true)
        #expect(try await storage.fetch("Post", id: created.objectId) == created)
        // `other` was not recorded as a String either: it can still become a Number.
        let later = try await storage.create("Post", changes: sets(["other": 5]))
        #expect(later.fields["other"] == 5)
    }

    @Test("The type lock applies to creates, and a failed create stores nothing")
    func typeLockOnCreate() async throws {
        _ = try await storage.create("Post", changes: sets(["n": 1.5]))
        await expectDataAPIErrorAsync(111) {
            _ = try await storage.create("Post", changes: sets(["n": true]))
        }
        await expectDataAPIErrorAsync(111) {
            _ = try await storage.create("Post", changes: sets(["n": [1]]))
        }
        #expect(try await storage.count(ObjectQuery(className: "Post")) == 1)
        // Ints and doubles share the Number type; null fits any type.
        _ = try await storage.create("Post", changes: sets(["n": 7]))
        _ = try await storage.create("Post", changes: sets(["n": nil]))
        #expect(try await storage.count(ObjectQuery(className: "Post")) == 3)
    }

    static let conflictingValues: [(JSONValue, JSONValue)] = [
        (date("2020-01-01T00:00:00.000Z"), "2020-01-01T00:00:00.000Z"),
        (["__type": "Bytes", "base64": "AQID"], "AQID"),
        (["__type": "GeoPoint", "latitude": 1, "longitude": 2], ["latitude": 1, "longitude": 2]),
        (["k": 1], [1]),
        ([1], ["k": 1]),
        (true, 1),
        (pointer("Post", "x"), ["className": "Post", "objectId": "x"]),
    ]

    @Test("Typed values lock their own type", arguments: conflictingValues)
    func typeLockKinds(first: JSONValue, second: JSONValue) async throws {
        _ = try await storage.create("Thing", changes: sets(["f": first]))
        await expectDataAPIErrorAsync(111) {
            _ = try await storage.create("Thing", changes: sets(["f": second]))
        }
        _ = try await storage.create("Thing", changes: sets(["f": first]))
        #expect(try await storage.count(ObjectQuery(className: "Thing")) == 2)
    }

    @Test("Types are per class")
    func typesPerClass() async throws {
        _ = try await storage.create("A", changes: sets(["f": 1]))
        let b = try await storage.create("B", changes: sets(["f": "text"]))
        #expect(b.fields["f"] == "text")
    }

    @Test("An operation that doesn't fit the stored value throws 111 and leaves it unchanged")
    func operationTypeMismatch() async throws {
        let created = try await storage.create("Post", changes: sets(["s": "text", "a": [1], "n": 1]))
        await expectDataAPIErrorAsync(111) {
            _ = try await storage.update(
                "Post", id: created.objectId, changes: changes(["s": ["__op": "Increment", "amount": 1]]),
                condition: nil)
        }
        await expectDataAPIErrorAsync(111) {
            _ = try await storage.update(
                "Post", id: created.objectId, changes: changes(["n": ["__op": "Add", "objects": [1]]]), condition: nil)
        }
        await expectDataAPIErrorAsync(111) {
            _ = try await storage.update(
                "Post", id: created.objectId, changes: changes(["a": ["__op": "BitOr", "value": 1]]), condition: nil)
        }
        #expect(try await storage.fetch("Post", id: created.objectId) == created)
    }

    // MARK: Conditional writes

    @Test("A conditional update that doesn't match throws 305 and changes nothing")
    func conditionalUpdateMismatch() async throws {
        let created = try await storage.create("Post", changes: sets(["n": 1, "status": "draft"]))
        for condition in [#"{"n":{"$gt":5}}"#, #"{"status":"published"}"#, #"{"missing":{"$exists":true}}"#] {
            await expectDataAPIErrorAsync(305) {
                _ = try await storage.update(
                    "Post", id: created.objectId, changes: sets(["status": "x"]), condition: predicate(condition))
            }
        }
        #expect(try await storage.fetch("Post", id: created.objectId) == created)
    }

    @Test("A conditional update that matches is applied")
    func conditionalUpdateMatch() async throws {
        let created = try await storage.create("Post", changes: sets(["balance": 10]))
        let updated = try await storage.update(
            "Post", id: created.objectId, changes: changes(["balance": ["__op": "Decrement", "amount": 4]]),
            condition: predicate(#"{"balance":{"$gte":4}}"#))
        #expect(updated.fields["balance"] == 6)
        // The condition is checked against the current value, so a second identical withdrawal fails.
        _ = try await storage.update(
            "Post", id: created.objectId, changes: changes(["balance": ["__op": "Decrement", "amount": 4]]),
            condition: predicate(#"{"balance":{"$gte":4}}"#))
        await expectDataAPIErrorAsync(305) {
            _ = try await storage.update(
                "Post", id: created.objectId, changes: changes(["balance": ["__op": "Decrement", "amount": 4]]),
                condition: predicate(#"{"balance":{"$gte":4}}"#))
        }
        #expect(try await storage.fetch("Post", id: created.objectId)?.fields["balance"] == 2)
    }

    @Test("A condition only looks at the object being written")
    func conditionIsPerObject() async throws {
        let first = try await storage.create("Post", changes: sets(["n": 1]))
        let second = try await storage.create("Post", changes: sets(["n": 2]))
        await expectDataAPIErrorAsync(305) {
            _ = try await storage.update(
                "Post", id: first.objectId, changes: sets(["n": 3]), condition: predicate(#"{"n":2}"#))
        }
        let updated = try await storage.update(
            "Post", id: second.objectId, changes: sets(["n": 3]), condition: predicate(#"{"n":2}"#))
        #expect(updated.fields["n"] == 3)
    }

    @Test("A conditional delete that doesn't match throws 305 and keeps the object")
    func conditionalDelete() async throws {
        let created = try await storage.create("Post", changes: sets(["n": 1]))
        await expectDataAPIErrorAsync(305) {
            try await storage.delete("Post", id: created.objectId, condition: predicate(#"{"n":2}"#))
        }
        #expect(try await storage.fetch("Post", id: created.objectId) == created)
        try await storage.delete("Post", id: created.objectId, condition: predicate(#"{"n":1}"#))
        #expect(try await storage.fetch("Post", id: created.objectId) == nil)
        // With a condition, a missing object or class matches nothing.
        await expectDataAPIErrorAsync(305) {
            try await storage.delete("Post", id: created.objectId, condition: predicate(#"{"n":1}"#))
        }
        await expectDataAPIErrorAsync(305) {
            try await storage.delete("Nothing", id: "x", condition: predicate(#"{"n":1}"#))
        }
    }

    // MARK: Atomicity

    @Test("100 concurrent increments add exactly 100")
    func concurrentIncrements() async throws {
        let storage = self.storage
        let id = try await storage.create("Counter", changes: sets(["n": 0])).objectId
        let increment = try changes(["n": ["__op": "Increment", "amount": 1]])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<100 {
                group.addTask { _ = try await storage.update("Counter", id: id, changes: increment, condition: nil) }
            }
            try await group.waitForAll()
        }
        #expect(try await storage.fetch("Counter", id: id)?.fields["n"] == .int(100))
    }

    @Test("Concurrent conditional decrements never overdraw")
    func concurrentConditionalDecrements() async throws {
        let storage = self.storage
        let id = try await storage.create("Account", changes: sets(["balance": 10])).objectId
        let withdraw = try changes(["balance": ["__op": "Decrement", "amount": 3]])
        let condition = try predicate(#"{"balance":{"$gte":3}}"#)
        let successes = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do {
                        _ = try await storage.update("Account", id: id, changes: withdraw, condition: condition)
                        return true
                    } catch let error as DataAPIError where error.code == .conditionNotMatched {
                        return false
                    }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(successes == 3)
        #expect(try await storage.fetch("Account", id: id)?.fields["balance"] == 1)
    }

    @Test("Concurrent first writes to a new class all land in one class")
    func concurrentClassCreation() async throws {
        let storage = self.storage
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<30 {
                group.addTask { _ = try await storage.create("Fresh", changes: sets(["i": .int(Int64(index))])) }
            }
            try await group.waitForAll()
        }
        #expect(try await storage.count(ObjectQuery(className: "Fresh")) == 30)
    }

    // MARK: Size limit

    @Test("An object over 128 KB throws 116; nothing is stored, not even the class")
    func tooLargeOnCreate() async throws {
        let big = JSONValue.string(String(repeating: "x", count: 130 * 1024))
        await expectDataAPIErrorAsync(116) { _ = try await storage.create("Blob", changes: sets(["data": big])) }
        #expect(try await storage.classExists("Blob") == false)
        // The failed write recorded no type for `data`.
        let later = try await storage.create("Blob", changes: sets(["data": 1]))
        #expect(later.fields["data"] == 1)
    }

    @Test("An update that grows an object past 128 KB throws 116 and leaves it unchanged")
    func tooLargeOnUpdate() async throws {
        let half = JSONValue.string(String(repeating: "y", count: 70 * 1024))
        let created = try await storage.create("Blob", changes: sets(["a": half]))
        await expectDataAPIErrorAsync(116) {
            _ = try await storage.update("Blob", id: created.objectId, changes: sets(["b": half]), condition: nil)
        }
        #expect(try await storage.fetch("Blob", id: created.objectId) == created)
    }

    // MARK: Durability

    @Test("A new engine on the same file keeps the data and the schema")
    func reopen() async throws {
        let author = try await storage.create("Author", changes: sets(["name": "Ann"]))
        let post = try await storage.create(
            "Post", changes: sets(["n": 1, "tags": ["a", "b"], "author": author.pointer, "when": date("2020-01-01T00:00:00.000Z")]))

        let reopened = try db.reopen()
        #expect(try await reopened.fetch("Post", id: post.objectId) == post)
        #expect(try await reopened.fetch("Author", id: author.objectId) == author)
        #expect(reopened.isKnownClass("Author"))
        #expect(try await reopened.classExists("Post"))
        await expectDataAPIErrorAsync(111) {
            _ = try await reopened.update("Post", id: post.objectId, changes: sets(["n": "text"]), condition: nil)
        }
        await expectDataAPIErrorAsync(111) {
            _ = try await reopened.create("Post", changes: sets(["tags": "not an array"]))
        }
        // The recorded Array type still makes equality mean "contains".
        let found = try await reopened.find(ObjectQuery(className: "Post", predicate: predicate(#"{"tags":"b"}"#)))
        #expect(found.map(\.objectId) == [post.objectId])
        // Writes through the new engine are visible to it after yet another reopen.
        _ = try await reopened.update("Post", id: post.objectId, changes: sets(["n": 2]), condition: nil)
        #expect(try await db.reopen().fetch("Post", id: post.objectId)?.fields["n"] == 2)
    }
}
