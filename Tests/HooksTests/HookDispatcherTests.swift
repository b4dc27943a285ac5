import DataAPI
import Foundation
import JSON
import Logging
import Synchronization
import Testing

@testable import Hooks

/// A data service over a fresh SQLite file with the given hooks, removed afterwards.
/// Hooks of their own in each environment, as a host's deploys give them.
struct TwoEnvironments: HookSource {
    let production: HookRegistry
    let staging: HookRegistry

    func hooks(in environment: EnvironmentName) -> HookRegistry {
        environment == .staging ? staging : production
    }
}

final class HookedDatabase: Sendable {
    let path: String
    let dispatcher: HookDispatcher
    let failures = Recorder<HookDispatcher.Failure>()

    /// A database whose hooks are `register`'s in production, and `staging`'s (else the same) in
    /// staging.
    init(
        limits: HookDispatcher.Limits = .init(), staging: HookRegistry? = nil, _ register: (inout HookRegistry) -> Void
    ) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("HooksTests-\(UUID().uuidString).sqlite").path
        var registry = HookRegistry()
        register(&registry)
        let failures = failures
        dispatcher = HookDispatcher(
            service: DataService(sqlite: try SQLiteStorage(path: path)),
            hooks: TwoEnvironments(production: registry, staging: staging ?? registry), limits: limits,
            logger: Logger(label: "hooks-tests"), onAfterFailure: { failure in failures.record(failure) })
    }

    var service: DataService { dispatcher.hookedService }

    func count(_ className: String) async throws -> Int {
        try await service.find(ObjectQuery(className: className), withCount: true, caller: .master).count ?? 0
    }

    deinit {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

/// Collects values reported from inside hooks.
final class Recorder<Value: Sendable>: Sendable {
    private let values = Mutex<[Value]>([])
    func record(_ value: Value) { values.withLock { $0.append(value) } }
    var all: [Value] { values.withLock { $0 } }
}

/// Counts calls from inside hooks.
final class Counter: Sendable {
    private let value = Mutex(0)
    func bump() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}

@Suite struct HookDispatcherTests {
    let client = Caller(isMaster: false)

    @Test func beforeSaveChangesWhatIsStoredAndAfterSaveSeesIt() async throws {
        let seen = Mutex<JSONValue?>(nil)
        let db = try HookedDatabase { hooks in
            hooks.beforeSave("Todo") { request in
                request.object["title"] = .string((request.object["title"]?.stringValue ?? "").uppercased())
                request.object["checked"] = true
                request.context["from"] = "before"
            }
            hooks.afterSave("Todo") { request in
                seen.withLock { $0 = ["title": request.object["title"] ?? .null, "context": .object(request.context)] }
            }
        }
        let object = try await db.service.create("Todo", body: ["title": "milk"], caller: client)
        #expect(object.fields["title"] == "MILK" && object.fields["checked"] == true)
        #expect(seen.withLock { $0 } == ["title": "MILK", "context": ["from": "before"]])
    }

    @Test func aRejectingBeforeSaveWritesNothing() async throws {
        let db = try HookedDatabase { hooks in
            hooks.beforeSave("Todo") { request in
                if request.object["title"] == nil { throw HookError(code: 123, message: "A todo needs a title.") }
            }
            hooks.beforeSave("Note") { _ in throw CancellationError() }
        }
        var refusal = HookError(code: 123, message: "A todo needs a title.")
        // The dispatcher names the hook that refused.
        refusal.hook = .beforeSave
        await #expect(throws: refusal) {
            try await db.service.create("Todo", body: ["x": 1], caller: client)
        }
        do {
            _ = try await db.service.create("Note", body: ["x": 1], caller: client)
            Issue.record("the hook's failure must reject the write")
        } catch let error as HookError {
            #expect(error.code == 142 && error.message.hasPrefix("Cloud Code validation failed"), "\(error)")
        }
        _ = try await db.service.create("Todo", body: ["title": "ok"], caller: client)
        #expect(try await db.count("Todo") == 1)
        #expect(try await db.service.engines.production.classExists("Note") == false, "nothing at all was written")
    }

    @Test func afterHookFailureKeepsTheWriteAndIsReported() async throws {
        let db = try HookedDatabase { hooks in
            hooks.afterSave("Todo") { _ in throw HookError(message: "notification service down") }
        }
        let object = try await db.service.create("Todo", body: ["title": "kept"], caller: client)
        #expect(try await db.count("Todo") == 1)
        let failures = db.failures.all
        #expect(failures.count == 1)
        #expect(failures.first?.objectId == object.objectId && failures.first?.kind == .afterSave)
        #expect(failures.first?.message == "notification service down")
    }

    @Test func beforeUpdateChangesTheUpdateAndSeesTheOriginal() async throws {
        let seen = Mutex<[String]>([])
        let db = try HookedDatabase { hooks in
            hooks.beforeUpdate("Todo") { request in
                seen.withLock { $0 = request.updatedKeys + [request.original?.fields["title"]?.stringValue ?? "-"] }
                request.object["editedBy"] = "hook"
                request.context["n"] = 7
            }
            hooks.afterUpdate("Todo") { request in
                seen.withLock { $0.append(request.context["n"] == 7 ? "context" : "no context") }
            }
        }
        let object = try await db.service.create("Todo", body: ["title": "old", "n": 1], caller: client)
        let written = try await db.service.update(
            "Todo", id: object.objectId, body: ["title": "new", "n": ["__op": "Increment", "amount": 2]], caller: client)
        let (updated, keys) = (written.object, written.changedKeys)
        #expect(updated.fields["editedBy"] == "hook" && updated.fields["n"] == 3 && updated.fields["title"] == "new")
        #expect(keys.contains("editedBy"), "the hook's change is among the changed keys")
        #expect(seen.withLock { $0 } == ["n", "title", "old", "context"])
    }

    @Test func beforeDeleteGuardsAndAfterDeleteSeesTheObject() async throws {
        let deleted = Mutex<String?>(nil)
        let db = try HookedDatabase { hooks in
            hooks.beforeDelete("Todo") { request in
                if request.object["locked"] == true { throw HookError(message: "locked") }
            }
            hooks.afterDelete("Todo") { request in deleted.withLock { $0 = request.object["title"]?.stringValue } }
        }
        let locked = try await db.service.create("Todo", body: ["title": "a", "locked": true], caller: client)
        let open = try await db.service.create("Todo", body: ["title": "b"], caller: client)
        await #expect(throws: HookError.self) { try await db.service.delete("Todo", id: locked.objectId, caller: client) }
        try await db.service.delete("Todo", id: open.objectId, caller: client)
        #expect(try await db.count("Todo") == 1)
        #expect(deleted.withLock { $0 } == "b")
    }

    @Test func aHookSavingItsOwnObjectDoesNotLoop() async throws {
        let calls = Counter()
        let db = try HookedDatabase { hooks in
            hooks.afterSave("Todo") { request in
                calls.bump()
                let id = request.object["objectId"]?.stringValue ?? ""
                _ = try await request.data.withoutHooks.update("Todo", id: id, ["stamped": true])
            }
            hooks.afterUpdate("Todo") { _ in calls.bump() }
        }
        let object = try await db.service.create("Todo", body: ["title": "x"], caller: client)
        #expect(calls.count == 1, "the hook's own update ran no hook")
        #expect(try await db.service.fetch("Todo", id: object.objectId, caller: .master)?.fields["stamped"] == true)
    }

    @Test func hooksWritingEachOthersClassesStopAtTheDepthLimit() async throws {
        let calls = Counter()
        let db = try HookedDatabase(limits: .init(maxDepth: 4)) { hooks in
            hooks.beforeSave("Ping") { request in
                calls.bump()
                _ = try await request.data.create("Pong", [:])
            }
            hooks.beforeSave("Pong") { request in
                calls.bump()
                _ = try await request.data.create("Ping", [:])
            }
        }
        do {
            _ = try await db.service.create("Ping", body: [:], caller: client)
            Issue.record("an endless chain must stop")
        } catch let error as HookError {
            #expect(error.message.contains("nested more than 4"), "\(error)")
        }
        #expect(calls.count == 4)
        #expect(try await db.service.engines.production.classExists("Ping") == false, "every write of the chain was rejected")
    }

    @Test func findHooksChangeTheQueryAndTheResults() async throws {
        let db = try HookedDatabase { hooks in
            hooks.beforeFind("Todo") { request in
                // Only open todos are visible, whatever the client asked.
                var condition = request.object["where"]?.objectValue ?? [:]
                condition["done"] = false
                request.object["where"] = .object(condition)
            }
            hooks.afterFind("Todo") { request in
                request.results = request.results.map { object in
                    var object = object
                    object.fields["secret"] = nil
                    return object
                }
            }
        }
        for (title, done) in [("a", false), ("b", true), ("c", false)] {
            _ = try await db.service.create("Todo", body: ["title": .string(title), "done": .bool(done), "secret": 1], caller: client)
        }
        let (_, objects, _) = try await db.service.find(
            "Todo", parameters: ["order": "title", "where": #"{"title":{"$ne":"c"}}"#], caller: client)
        #expect(objects.map { $0.fields["title"] } == ["a"])
        #expect(objects.allSatisfy { $0.fields["secret"] == nil })
    }

    @Test func aSlowBeforeHookTimesOutAndRejects() async throws {
        let db = try HookedDatabase(limits: .init(beforeTimeout: .milliseconds(50))) { hooks in
            hooks.beforeSave("Todo") { _ in try await Task.sleep(for: .seconds(60)) }
        }
        do {
            _ = try await db.service.create("Todo", body: [:], caller: client)
            Issue.record("a hook past its deadline must reject the write")
        } catch let error as HookError {
            #expect(error.code == 141 && error.reason == .timedOut && error.hook == .beforeSave, "\(error)")
        }
        #expect(try await db.service.engines.production.classExists("Todo") == false)
    }

    @Test func environmentsHaveTheirOwnHooksAndCallersCanSkipThem() async throws {
        var staging = HookRegistry()
        staging.beforeSave("Todo") { request in request.object["by"] = "staging" }
        let db = try HookedDatabase(staging: staging) { hooks in
            hooks.beforeSave("Todo") { request in request.object["by"] = "production" }
        }
        let production = try await db.service.create("Todo", body: [:], caller: client)
        let onStaging = try await db.service.create("Todo", body: [:], caller: Caller(isMaster: false, environment: .staging))
        let skipped = try await db.service.create("Todo", body: [:], caller: Caller(isMaster: true, skippedHooks: [.beforeSave]))
        #expect(production.fields["by"] == "production")
        #expect(onStaging.fields["by"] == "staging")
        #expect(skipped.fields["by"] == nil)
    }

    @Test func hookNamesFollowLeanEngine() {
        #expect(HookKind.beforeSave.functionName(for: "Todo") == "__before_save_for_Todo")
        #expect(HookKind.afterDelete.functionName(for: "_User") == "__after_delete_for__User")
        var registry = HookRegistry()
        registry.afterUpdate("Todo") { _ in }
        registry.beforeFind("Todo") { _ in }
        #expect(registry.functionNames == ["__after_update_for_Todo", "__before_find_for_Todo"])
    }
}
