import JSON
import Testing

@testable import DataAPI

/// One pipeline per operation (issue 32): each operation reads its environment's hook set once,
/// walks the caller's roles once however many checks it makes, and reads the object it updates
/// or deletes once, inside the write's transaction (once before its hooks when it has some).
/// Counted with a counting engine and counting hooks, on SQLite and on PostgreSQL.
@Suite struct PipelineCountTests {
    static let ann = Caller(isMaster: false, user: ["objectId": "ann"])
    static let bob = Caller(isMaster: false, user: ["objectId": "bob"])
    static let annOnly: JSONValue = ["ann": ["read": true, "write": true]]

    /// A service over `storage` with `hooks` (none when nil).
    static func service(_ storage: CountingStorage, hooks: CountingHooks? = nil) -> DataService {
        var service = DataService(storage: storage)
        service.hooks = hooks
        return service
    }

    /// A Todo only ann reads and writes, created by the master key; the counts start after it.
    static func annsTodo(_ service: DataService, _ storage: CountingStorage) async throws -> String {
        let todo = try await service.create("Todo", body: ["title": "a", "n": 1, "ACL": annOnly], caller: .master)
        storage.reset()
        return todo.objectId
    }

    @Test func aCreateWithTwoHooksReadsTheHookSetOnce() async throws {
        try await CountingStorage.withEngine { storage in
            let hooks = CountingHooks([.beforeSave, .afterSave], of: "Todo") { kind, event in
                if kind == .beforeSave { event.object["title"] = "changed" }
            }
            let service = Self.service(storage, hooks: hooks)
            let written = try await service.creating("Todo", body: ["title": "a"], caller: Self.ann)
            #expect(written.object.fields["title"] == "changed")
            // Before: 5 (whether to build the hook's object, then "is there one?" and its lookup for each hook).
            #expect(hooks.snapshotCount == 1)
            #expect(hooks.ran(.beforeSave) == 1 && hooks.ran(.afterSave) == 1)
        }
    }

    @Test func anUpdateWithHooksReadsTheHookSetOnceAndTheRowOnceBeforeThem() async throws {
        try await CountingStorage.withEngine { storage in
            let hooks = CountingHooks([.beforeUpdate, .afterUpdate], of: "Todo")
            let service = Self.service(storage, hooks: hooks)
            let id = try await Self.annsTodo(service, storage)
            hooks.reset()
            let written = try await service.update("Todo", id: id, body: ["n": ["__op": "Increment", "amount": 2]], caller: Self.ann)
            #expect(written.object.fields["n"] == 3)
            // Before: 7 hook-set reads, and 3 reads of the row (its ACL, the hook's original, the write's).
            #expect(hooks.snapshotCount == 1)
            #expect(hooks.ran(.beforeUpdate) == 1 && hooks.ran(.afterUpdate) == 1)
            #expect(storage.count("fetch:Todo") == 1)
            #expect(storage.count("update:Todo") == 1)
        }
    }

    @Test func aPlainUpdateOrDeleteReadsTheRowOnlyInItsTransactionAndChecksItThere() async throws {
        try await CountingStorage.withEngine { storage in
            let service = Self.service(storage)
            let id = try await Self.annsTodo(service, storage)
            // Bob may not write it: refused (119) by the check inside the write, nothing written.
            await expectDataAPIErrorAsync(119) {
                _ = try await service.update("Todo", id: id, body: ["title": "bob's"], caller: Self.bob)
            }
            await expectDataAPIErrorAsync(119) { try await service.delete("Todo", id: id, caller: Self.bob) }
            // A conditional write needs read access too.
            let readOnly: JSONValue = ["ann": ["read": true, "write": true], "bob": ["write": true]]
            _ = try await service.update("Todo", id: id, body: ["ACL": readOnly], caller: .master)
            await expectDataAPIErrorAsync(119) {
                _ = try await service.update(
                    "Todo", id: id, body: ["title": "bob's"], condition: try predicate(#"{"n": 1}"#), caller: Self.bob)
            }
            #expect(try await service.fetch("Todo", id: id, caller: .master)?.fields["title"] == "a")
            storage.reset()
            let written = try await service.update("Todo", id: id, body: ["title": "b"], caller: Self.ann)
            #expect(written.object.fields["title"] == "b")
            try await service.delete("Todo", id: id, condition: try predicate(#"{"title": "b"}"#), caller: Self.ann)
            // Before: one read for the ACL check of each, besides the update's own.
            #expect(storage.count("fetch:Todo") == 0)
            #expect(try await service.fetch("Todo", id: id, caller: .master) == nil)
        }
    }

    @Test func aDeleteWithHooksReadsTheRowOnce() async throws {
        try await CountingStorage.withEngine { storage in
            let hooks = CountingHooks([.beforeDelete, .afterDelete], of: "Todo")
            let service = Self.service(storage, hooks: hooks)
            let id = try await Self.annsTodo(service, storage)
            await expectDataAPIErrorAsync(119) { try await service.delete("Todo", id: id, caller: Self.bob) }
            #expect(hooks.ran(.beforeDelete) == 0, "a caller who may not delete runs no hook")
            storage.reset()
            hooks.reset()
            try await service.delete("Todo", id: id, caller: Self.ann)
            // Before: 2 (the ACL check's, the hook's) and 5 hook-set reads.
            #expect(storage.count("fetch:Todo") == 1)
            #expect(hooks.snapshotCount == 1 && hooks.ran(.beforeDelete) == 1 && hooks.ran(.afterDelete) == 1)
        }
    }

    @Test func aUserUpdateWithAuthDataAndANewEmailReadsTheUserOnce() async throws {
        try await CountingStorage.withEngine { storage in
            var service = Self.service(storage)
            service.authDataVerification.trustsUnverified = .all
            let user = try await service.create(
                "_User", body: ["username": "ann", "password": "pw", "email": "a@example.com"], caller: .master)
            let caller = Caller(isMaster: false, user: .object(["objectId": .string(user.objectId)]))
            storage.reset()
            let written = try await service.update(
                "_User", id: user.objectId,
                body: ["email": "b@example.com", "authData": ["weixin": ["openid": "o1", "access_token": "t"]]], caller: caller)
            #expect(written.object.fields["emailVerified"] == false)
            #expect(written.object.fields["authData"]?["weixin"]?["openid"] == "o1")
            // Before: 3 (the ACL check's, authData's merge, the email's comparison) besides the write's.
            #expect(storage.count("fetch:_User") == 1)
        }
    }

    @Test func theRolesAreWalkedOncePerRequestAndAgainAfterARoleChanges() async throws {
        try await CountingStorage.withEngine { storage in
            let hooks = CountingHooks([.beforeSave], of: "Todo") { _, event in event.object["title"] = "hooked" }
            let service = Self.service(storage, hooks: hooks)
            let user = try await service.create("_User", body: ["username": "ann", "password": "pw"], caller: .master)
            let member: JSONValue = ["__type": "Pointer", "className": "_User", "objectId": .string(user.objectId)]
            let role = try await service.create(
                "_Role", body: ["name": "editors", "ACL": ["*": ["read": true]], "users": ["__op": "AddRelation", "objects": [member]]],
                caller: .master)
            let caller = Caller(isMaster: false, user: .object(["objectId": .string(user.objectId)]))
            storage.reset()
            // A create whose hook changed the object, then its answer: one walk (the user's
            // roles, then the roles holding those).
            let written = try await service.creating(
                "Todo", body: ["title": "a", "ACL": ["role:editors": ["read": true, "write": true]]], caller: caller)
            #expect(written.ranBeforeHook)
            let answered = try await service.answering(written.object, caller: caller)
            #expect(answered?.fields["title"] == "hooked", "a role member reads it")
            #expect(storage.count("find:_Role") == 2, "before: 4")
            // A role written since is walked again: the caller left the role, and can't read it now.
            _ = try await service.update(
                "_Role", id: role.objectId, body: ["users": ["__op": "RemoveRelation", "objects": [member]]], caller: .master)
            #expect(try await service.answering(written.object, caller: caller) == nil)
        }
    }

    @Test func aBatchPreflightReadsTheObjectOnce() async throws {
        try await CountingStorage.withEngine { storage in
            let service = Self.service(storage)
            let id = try await Self.annsTodo(service, storage)
            try await service.checkWrite("Todo", id: id, body: ["title": "b"], condition: nil, caller: Self.ann)
            await expectDataAPIErrorAsync(119) {
                try await service.checkWrite("Todo", id: id, body: ["title": "b"], condition: nil, caller: Self.bob)
            }
            await expectDataAPIErrorAsync(101) {
                try await service.checkWrite("Todo", id: "nothere", body: [:], condition: nil, caller: Self.ann)
            }
            // Before: 2 each (the ACL check's, the existence check's).
            #expect(storage.count("fetch:Todo") == 3)
        }
    }

    @Test func countsAndQueriesInAnotherFormRunTheFindHooksWithOneHookSet() async throws {
        try await CountingStorage.withEngine { storage in
            let hooks = CountingHooks([.beforeFind, .afterFind], of: "Todo") { kind, event in
                if kind == .beforeFind { event.object["where"] = ["n": 2] }
            }
            let service = Self.service(storage, hooks: hooks)
            for n in 1...3 { _ = try await service.create("Todo", body: ["n": .int(Int64(n))], caller: .master) }
            hooks.reset()
            // CQL's path: an `ObjectQuery` with a count.
            let found = try await service.find(ObjectQuery(className: "Todo"), withCount: true, caller: Self.ann)
            #expect(found.count == 1 && found.objects.count == 1)
            #expect(hooks.snapshotCount == 1 && hooks.ran(.beforeFind) == 1 && hooks.ran(.afterFind) == 1)
            // A count alone (cloud code's `count`): beforeFind narrows it, no afterFind.
            hooks.reset()
            let counted = try await service.find("Todo", query: ["limit": 0, "count": 1], withCount: true, caller: Self.ann)
            #expect(counted.count == 1 && hooks.ran(.beforeFind) == 1 && hooks.ran(.afterFind) == 0)
        }
    }
}
