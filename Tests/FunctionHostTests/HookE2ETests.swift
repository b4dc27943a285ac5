import DataAPI
import Foundation
import HTTPTypes
import Hooks
import Hummingbird
import HummingbirdTesting
import Synchronization
import TestSupport
import Testing

@testable import FunctionHost

/// Hooks from JavaScript and Swift, fired by writes over real HTTP.
@Suite struct HookE2ETests {
    /// Hooks as a LeanEngine app writes them.
    static let hooks = """
        var AV = require('leanengine');

        AV.Cloud.beforeSave('Todo', function (request) {
          var title = request.object.get('title');
          if (!title) throw new AV.Cloud.Error('A todo needs a title.');
          if (title === 'forbidden') throw new AV.Cloud.Error('Not that one.', { code: 403, status: 403 });
          request.object.set('title', title.trim());
          request.object.set('slug', title.trim().toLowerCase().replace(/\\s+/g, '-'));
          request.context.startedBy = 'beforeSave';
        });

        AV.Cloud.afterSave('Todo', async function (request) {
          // The request holds what LeanEngine's does: nothing of the bridge's own (whether the host reads the answer back).
          await new AV.Object('Log').save({
            todo: request.object.id, action: 'created', context: request.context.startedBy, requestKeys: Object.keys(request).sort()
          });
          // Saving the hook's own object runs none of Todo's hooks again.
          request.object.set('logged', true);
          await request.object.save();
        });

        AV.Cloud.beforeUpdate('Todo', function (request) {
          if (request.original.get('locked')) throw new AV.Cloud.Error('This todo is locked.', { code: 137 });
          request.object.set('editCount', (request.original.get('editCount') || 0) + 1);
          request.context.keys = request.object.updatedKeys.join(',');
        });

        AV.Cloud.afterUpdate('Todo', function (request) {
          return new AV.Object('Log').save({ todo: request.object.id, action: 'updated', keys: request.context.keys });
        });

        AV.Cloud.beforeDelete('Todo', function (request, response) {
          if (request.object.get('locked')) return response.error('Locked todos stay.');
          response.success();
        });

        AV.Cloud.afterDelete('Todo', function (request) {
          return new AV.Object('Log').save({ todo: request.object.id, action: 'deleted' });
        });

        AV.Cloud.afterSave('Fragile', function () { throw new Error('the mail service is down'); });

        AV.Cloud.beforeFind('Secret', function (request) { request.query.equalTo('visible', true); });
        AV.Cloud.afterFind('Secret', function (request) {
          request.objects.forEach(function (object) { object.unset('pin'); });
        });

        AV.Cloud.beforeSave('Ping', function () { return new AV.Object('Pong').save(); });
        AV.Cloud.beforeSave('Pong', function () { return new AV.Object('Ping').save(); });

        AV.Cloud.define('addTodoJS', async function (request) {
          var todo = await new AV.Object('Todo').save({ title: request.params.title });
          return todo.get('slug');
        });
        """

    static func withHooks<Value: Sendable>(
        failures: Recorded<HookDispatcher.Failure> = Recorded(), _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try hooks.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        var functions = FunctionRegistry()
        functions.define("addTodoSwift") { request -> String in
            let todo = try await request.data.create("Todo", ["title": request.params["title"] ?? .null])
            return todo.fields["slug"]?.stringValue ?? "-"
        }
        functions.hooks.beforeSave("Note") { request in
            request.object["text"] = .string((request.object["text"]?.stringValue ?? "") + " (checked in Swift)")
        }
        return try await TestServer.run(
            dataDirectory: directory, functions: functions, functionsDirectory: directory,
            configure: { configuration in
                configuration.hookLimits.maxDepth = 4
                configuration.onAfterHookFailure = { failures.record($0) }
            }, body)
    }

    @Test func beforeSaveChangesWhatIsStoredAndWhatTheClientGetsBack() async throws {
        try await Self.withHooks { api in
            let created = try await api.post("/1.1/classes/Todo", ["title": "  Buy Milk "])
            #expect(created.status == .created)
            #expect(created["title"] == "Buy Milk" && created["slug"] == "buy-milk", "\(created)")
            let id = try #require(created["objectId"]?.stringValue)
            let stored = try await api.get("/1.1/classes/Todo/\(id)")
            #expect(stored["title"] == "Buy Milk" && stored["slug"] == "buy-milk")
            #expect(stored["logged"] == true, "afterSave saved its own object")
            let logs = try await api.get("/1.1/classes/Log?where=\(encode(#"{"todo":"\#(id)"}"#))")
            #expect(logs["results"]?.arrayValue?.count == 1, "no hook ran twice: \(logs)")
            #expect(logs.results.first?["context"] == "beforeSave", "context went from before to after")
            let keys = logs.results.first?["requestKeys"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(keys.contains("object") && !keys.contains("answers"), "the afterSave's request: \(keys)")
        }
    }

    @Test func rejectionsAnswerTheirCodeAndWriteNothing() async throws {
        try await Self.withHooks { api in
            let untitled = try await api.post("/1.1/classes/Todo", ["done": false])
            #expect(untitled.status == .badRequest && untitled["code"] == 142, "\(untitled)")
            #expect(untitled["error"]?.stringValue?.contains("A todo needs a title.") == true)
            expectError(try await api.post("/1.1/classes/Todo", ["title": "forbidden"]), code: 403, status: .forbidden)
            #expect((try await api.count("Todo") ?? 0) == 0, "nothing was written")
            // The master key may skip named hooks; a client may not.
            let skipped = try await api.post(
                "/1.1/classes/Todo", headers: Headers.master, ["done": true, "__ignore_hooks": ["beforeSave", "afterSave"]])
            #expect(skipped.status == .created && skipped["slug"] == nil, "\(skipped)")
            try await Self.expectAfterSaveSkipped(api, try #require(skipped.objectId))
            expectError(
                try await api.post("/1.1/classes/Todo", ["title": "x", "__ignore_hooks": ["beforeSave"]]), code: 119,
                status: .forbidden)
            #expect(try await api.count("Todo") == 1)
        }
    }

    @Test func theMasterKeySkipsAfterSaveAloneAndItDoesNotRun() async throws {
        try await Self.withHooks { api in
            let skipped = try await api.post(
                "/1.1/classes/Todo", headers: Headers.master, ["title": " Quiet One ", "__ignore_hooks": ["afterSave"]])
            // beforeSave still ran: only the hook named is skipped.
            #expect(skipped.status == .created && skipped["slug"] == "quiet-one", "\(skipped)")
            try await Self.expectAfterSaveSkipped(api, try #require(skipped.objectId))
        }
    }

    /// Checks that Todo `id`'s afterSave did not run: it would have saved a Log naming the todo
    /// and marked the todo `logged`. A Todo saved afterwards without skipping shows both (so
    /// the hook is loaded and runs), and the skipped one still has neither.
    static func expectAfterSaveSkipped(_ api: API, _ id: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let witness = try await api.create("Todo", ["title": "witness"])
        let witnessed = try await api.fetch("Todo", witness)
        #expect(witnessed["logged"] == true, "the witness's afterSave ran: \(witnessed)", sourceLocation: sourceLocation)
        #expect(
            try await api.matching("Log", #"{"todo":"\#(witness)"}"#).count == 1, "the witness was logged",
            sourceLocation: sourceLocation)
        let skipped = try await api.fetch("Todo", id)
        #expect(skipped["logged"] == nil, "afterSave did not mark the skipped todo: \(skipped)", sourceLocation: sourceLocation)
        #expect(
            try await api.matching("Log", #"{"todo":"\#(id)"}"#).isEmpty, "afterSave logged nothing for the skipped todo",
            sourceLocation: sourceLocation)
        _ = try await api.delete("/1.1/classes/Todo/\(witness)", headers: Headers.master)
    }

    @Test func updatesSeeTheOriginalTheKeysAndKeepTheHooksChanges() async throws {
        try await Self.withHooks { api in
            let id = try #require(try await api.post("/1.1/classes/Todo", ["title": "draft"]).objectId)
            let updated = try await api.put("/1.1/classes/Todo/\(id)", ["title": "final", "priority": 2])
            #expect(updated["editCount"] == 1, "beforeUpdate's change comes back to the client: \(updated)")
            #expect(try await api.get("/1.1/classes/Todo/\(id)")["editCount"] == 1)
            let logs = try await api.get("/1.1/classes/Log?where=\(encode(#"{"action":"updated"}"#))")
            #expect(logs.results.first?["keys"] == "priority,title", "updatedKeys reach the hook: \(logs)")
            _ = try await api.put("/1.1/classes/Todo/\(id)", headers: Headers.master, ["locked": true, "__ignore_hooks": ["beforeUpdate"]])
            expectError(try await api.put("/1.1/classes/Todo/\(id)", ["title": "again"]), code: 137, status: .badRequest)
            #expect(try await api.get("/1.1/classes/Todo/\(id)")["title"] == "final")
        }
    }

    @Test func deletesAreGuardedAndLogged() async throws {
        try await Self.withHooks { api in
            let open = try #require(try await api.post("/1.1/classes/Todo", ["title": "open"]).objectId)
            let locked = try #require(try await api.post("/1.1/classes/Todo", ["title": "kept", "locked": true]).objectId)
            #expect(try await api.delete("/1.1/classes/Todo/\(open)").status == .ok)
            let refused = try await api.delete("/1.1/classes/Todo/\(locked)")
            #expect(refused["code"] == 142 && refused["error"]?.stringValue?.contains("Locked todos stay.") == true, "\(refused)")
            #expect(try await api.count("Todo") == 1)
            let logs = try await api.get("/1.1/classes/Log?where=\(encode(#"{"action":"deleted"}"#))")
            #expect(logs.results.first?["todo"] == .string(open))
        }
    }

    @Test func afterHookFailuresKeepTheWriteAndAreReported() async throws {
        let failures = Recorded<HookDispatcher.Failure>()
        try await Self.withHooks(failures: failures) { api in
            let created = try await api.post("/1.1/classes/Fragile", ["n": 1])
            #expect(created.status == .created)
            #expect(try await api.count("Fragile") == 1)
            let failure = try #require(failures.all.first)
            #expect(failure.kind == .afterSave && failure.className == "Fragile")
            #expect(failure.objectId == created["objectId"]?.stringValue)
            #expect(failure.message.contains("the mail service is down"), "\(failure.message)")
        }
    }

    @Test func findHooksFilterQueriesAndResults() async throws {
        try await Self.withHooks { api in
            for (name, visible) in [("a", true), ("b", false), ("c", true)] {
                _ = try await api.post("/1.1/classes/Secret", ["name": .string(name), "visible": .bool(visible), "pin": 1234])
            }
            let found = try await api.get("/1.1/classes/Secret?order=name")
            let results = found["results"]?.arrayValue ?? []
            #expect(results.map { $0["name"] } == ["a", "c"], "\(found)")
            #expect(results.allSatisfy { $0["pin"] == nil })
        }
    }

    @Test func hooksThatWriteEachOtherStopAtTheDepthLimit() async throws {
        try await Self.withHooks { api in
            let reply = try await api.post("/1.1/classes/Ping", [:])
            #expect(reply["code"] == 142, "\(reply)")
            #expect(reply["error"]?.stringValue?.contains("nested more than 4") == true, "\(reply)")
            #expect(try await api.get("/1.1/classes/Ping")["code"] == 101, "nothing of the chain was written")
        }
    }

    @Test func hooksRunForBatchItemsAndForWritesFromFunctions() async throws {
        try await Self.withHooks { api in
            let batch = try await api.post(
                "/1.1/batch",
                [
                    "requests": [
                        ["method": "POST", "path": "/1.1/classes/Todo", "body": ["title": "From Batch"]],
                        ["method": "POST", "path": "/1.1/classes/Todo", "body": ["done": true]],
                    ]
                ])
            #expect(batch.json?.arrayValue?.first?["success"]?["objectId"] != nil, "\(batch)")
            #expect(batch.json?.arrayValue?.last?["error"]?["code"] == 142, "\(batch)")
            #expect(try await api.post("/1.1/functions/addTodoSwift", ["title": "Walk Dog"]).json == ["result": "walk-dog"])
            #expect(try await api.post("/1.1/functions/addTodoJS", ["title": "Feed Cat"]).json == ["result": "feed-cat"])
            #expect(try await api.count("Todo") == 3)
            let note = try await api.post("/1.1/classes/Note", ["text": "hi"])
            #expect(note["text"] == "hi (checked in Swift)", "a Swift hook: \(note)")
        }
    }

    @Test func platformStyleEndpointsNeedTheHookKey() async throws {
        try await Self.withHooks { api in
            let hook = Headers.make([("X-LC-Hook-Key", "hook")])
            let before = try await api.post("/1.1/functions/Todo/beforeSave", headers: hook, ["object": ["title": " Hook Call "]])
            #expect(before.json?["title"] == "Hook Call" && before.json?["slug"] == "hook-call", "\(before)")
            let after = try await api.post("/1.1/functions/Todo/afterDelete", headers: hook, ["object": ["objectId": "x1"]])
            #expect(after.json == ["result": "ok"])
            let wrong = Headers.make([("X-LC-Hook-Key", "nope")])
            expectError(
                try await api.post("/1.1/functions/Todo/beforeSave", headers: wrong, ["object": [:]]), code: 401,
                status: .unauthorized)
            expectError(
                try await api.post("/1.1/functions/Nothing/beforeSave", headers: hook, ["object": [:]]), code: 1,
                status: .notFound)
            let names = try await api.get("/1.1/functions/_ops/metadatas", headers: Headers.master)
            let list = names["result"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(list.contains("__before_save_for_Todo") && list.contains("__before_save_for_Note") && list.contains("addTodoJS"))
        }
    }
}
