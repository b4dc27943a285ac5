import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("DataService")
struct DataServiceTests {
    let db: SQLiteTestDatabase
    var storage: SQLiteStorage { db.storage }
    var service: DataService { db.service }
    let user = Caller(isMaster: false)

    init() throws {
        db = try SQLiteTestDatabase()
    }

    @Test("create, fetch, update and delete through the service")
    func lifecycle() async throws {
        let created = try await service.create(
            "Post", body: ["title": "Hello", "when": date("2020-01-01T08:00:00+08:00"), "_method": "POST"], caller: user)
        #expect(created.fields["title"] == "Hello")
        #expect(created.fields["when"] == date("2020-01-01T00:00:00.000Z"))
        #expect(created.fields["_method"] == nil)
        #expect(created.fields["ACL"] == ACL.publicReadWrite)
        #expect(try await service.fetch("Post", id: created.objectId, caller: user) == created)

        let written = try await service.update(
            "Post", id: created.objectId, body: ["views": ["__op": "Increment"], "title": ["__op": "Delete"]], caller: user)
        let (updated, changedKeys) = (written.object, written.changedKeys)
        #expect(changedKeys == ["title", "views"])
        #expect(updated.fields["views"] == 1)
        #expect(updated.fields["title"] == nil)

        try await service.delete("Post", id: created.objectId, caller: user)
        #expect(try await service.fetch("Post", id: created.objectId, caller: user) == nil)
    }

    @Test("Bodies are validated before anything is stored")
    func invalidBodies() async throws {
        await expectDataAPIErrorAsync(105) { _ = try await service.create("Post", body: ["objectId": "x"], caller: user) }
        await expectDataAPIErrorAsync(111) {
            _ = try await service.create("Post", body: ["n": ["__op": "Explode"]], caller: user)
        }
        await expectDataAPIErrorAsync(123) { _ = try await service.create("Post", body: ["ACL": ["*": 1]], caller: user) }
        await expectDataAPIErrorAsync(106) {
            _ = try await service.create("Post", body: ["author": pointer("Nobody", "x")], caller: user)
        }
        #expect(try await storage.classExists("Post") == false)
    }

    @Test("Fetching from a class that doesn't exist throws 101; a missing object is nil")
    func missingClassAndObject() async throws {
        let error = await expectDataAPIErrorAsync(101) { _ = try await service.fetch("Nothing", id: "x", caller: user) }
        #expect(error?.message.contains("doesn't exist") == true)
        await expectDataAPIErrorAsync(101) {
            _ = try await service.find(ObjectQuery(className: "Nothing"), caller: user)
        }
        _ = try await service.create("Post", body: [:], caller: user)
        #expect(try await service.fetch("Post", id: "missing", caller: user) == nil)
        #expect(try await service.find(ObjectQuery(className: "Post"), caller: user).objects.count == 1)
    }

    @Test("System classes exist before they are written: fetch gives nil, find gives nothing")
    func systemClassReads() async throws {
        #expect(try await service.fetch("_User", id: "x", caller: user) == nil)
        let (objects, count) = try await service.find(ObjectQuery(className: "_Role"), withCount: true, caller: user)
        #expect(objects.isEmpty)
        #expect(count == 0)
    }

    @Test("Invalid class names throw 103", arguments: ["", "_Secret", "1abc", "a-b", "Robert'); DROP TABLE classes;--"])
    func invalidClassNames(name: String) async {
        await expectDataAPIErrorAsync(103) { _ = try await service.create(name, body: [:], caller: .master) }
        await expectDataAPIErrorAsync(103) { _ = try await service.fetch(name, id: "x", caller: .master) }
        await expectDataAPIErrorAsync(103) { _ = try await service.find(ObjectQuery(className: name), caller: .master) }
        await expectDataAPIErrorAsync(103) { try await service.delete(name, id: "x", caller: .master) }
        await expectDataAPIErrorAsync(103) {
            _ = try await service.update(name, id: "x", body: [:], caller: .master)
        }
    }

    // Roles from clients have their own rules (RoleClientTests): a signed-in user creates them.
    @Test("Writes to system classes need the master key (119)", arguments: ["_Installation"])
    func systemClassWrites(className: String) async throws {
        await expectDataAPIErrorAsync(119) {
            _ = try await service.create(className, body: ["username": "eve"], caller: user)
        }
        #expect(try await storage.find(ObjectQuery(className: className)).isEmpty)

        let created = try await service.create(className, body: ["name": "root", "username": "root"], caller: .master)
        await expectDataAPIErrorAsync(119) {
            _ = try await service.update(className, id: created.objectId, body: ["username": "eve"], caller: user)
        }
        await expectDataAPIErrorAsync(119) { try await service.delete(className, id: created.objectId, caller: user) }
        // Reads are not restricted, and the object is unchanged.
        #expect(try await service.fetch(className, id: created.objectId, caller: user) == created)

        let updated = try await service.update(
            className, id: created.objectId, body: ["username": "admin"], caller: .master).object
        #expect(updated.fields["username"] == "admin")
        try await service.delete(className, id: created.objectId, caller: .master)
        #expect(try await service.fetch(className, id: created.objectId, caller: user) == nil)
    }

    @Test("Conditional update and delete through the service")
    func conditions() async throws {
        let created = try await service.create("Post", body: ["n": 1], caller: user)
        await expectDataAPIErrorAsync(305) {
            _ = try await service.update(
                "Post", id: created.objectId, body: ["n": 2], condition: predicate(#"{"n":0}"#), caller: user)
        }
        await expectDataAPIErrorAsync(305) {
            try await service.delete("Post", id: created.objectId, condition: predicate(#"{"n":0}"#), caller: user)
        }
        #expect(try await service.fetch("Post", id: created.objectId, caller: user) == created)
        let updated = try await service.update(
            "Post", id: created.objectId, body: ["n": 2], condition: predicate(#"{"n":1}"#), caller: user).object
        #expect(updated.fields["n"] == 2)
    }

    @Test("find with limit 0 returns no objects but can still count")
    func limitZero() async throws {
        for index in 0..<3 { _ = try await service.create("Post", body: ["i": .int(Int64(index))], caller: user) }
        let (objects, count) = try await service.find(
            ObjectQuery(className: "Post", limit: 0), withCount: true, caller: user)
        #expect(objects.isEmpty)
        #expect(count == 3)
        let (all, noCount) = try await service.find(ObjectQuery(className: "Post"), caller: user)
        #expect(all.count == 3)
        #expect(noCount == nil)
    }

    @Test("The schema type lock surfaces as 111 through the service")
    func typeLock() async throws {
        let created = try await service.create("Post", body: ["n": 1], caller: user)
        await expectDataAPIErrorAsync(111) {
            _ = try await service.update("Post", id: created.objectId, body: ["n": "one"], caller: user)
        }
        #expect(try await service.fetch("Post", id: created.objectId, caller: user) == created)
    }

    @Test("A pointer may target a class once the engine has read it")
    func pointerAfterRead() async throws {
        let author = try await service.create("Author", body: ["name": "Ann"], caller: user)
        _ = try await service.fetch("Author", id: author.objectId, caller: user)
        let post = try await service.create("Post", body: ["author": author.pointer], caller: user)
        #expect(post.fields["author"] == author.pointer)
    }

    @Test("A pointer may target a class just created by the same engine")
    func pointerToFreshClass() async throws {
        let author = try await service.create("Author", body: ["name": "Ann"], caller: user)
        // The creating write adds the class to the catalog that pointer checks consult.
        #expect(storage.isKnownClass("Author"))
        let post = try await service.create("Post", body: ["author": author.pointer], caller: user)
        #expect(post.fields["author"] == author.pointer)
    }
}
