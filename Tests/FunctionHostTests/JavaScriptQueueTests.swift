import CallSupport
import CloudQueue
import DataAPI
import Foundation
import JSON
import Logging
import Synchronization
import TestSupport
import Testing

@testable import FunctionHost

/// `AV.Cloud.enqueue` and `AV.Cloud.getTaskInfo` in JavaScript cloud code, called with
/// LeanEngine's Node SDK's own shapes, and Swift's `request.queue`: real JavaScriptCore, a
/// real queue on a SQLite file (or a PostgreSQL schema), a manual clock that runs tasks only
/// when the test says.
@Suite struct JavaScriptQueueTests {
    static let cloudJS = """
        AV.Cloud.define('work', async function (request) {
          await new AV.Object('Done').save({ a: request.params.a, user: request.currentUser ? request.currentUser.id : null },
            { useMasterKey: true });
          return 'did ' + request.params.a;
        });
        AV.Cloud.define('enqueue', function (request) {
          return AV.Cloud.enqueue('work', { a: 1 }, { attempts: 2, backoff: 1000, delay: 0, uniqueId: request.params.id });
        });
        AV.Cloud.define('enqueueWith', function (request) {
          var p = request.params;
          return AV.Cloud.enqueue(p.name, p.params, p.options);
        });
        AV.Cloud.define('info', async function (request) {
          var info = await AV.Cloud.getTaskInfo(request.params.id);
          return { uniqueId: info.uniqueId, status: info.status, result: info.result === undefined ? null : info.result,
            finishedIsDate: info.finishedAt instanceof Date, keys: Object.keys(info).sort() };
        });
        AV.Cloud.define('refused', async function (request) {
          try {
            var p = request.params;
            if (p.info) await AV.Cloud.getTaskInfo(p.info); else await AV.Cloud.enqueue(p.name, p.params, p.options);
            return null;
          } catch (error) {
            return { code: error.code, message: error.message, isAVError: error instanceof AV.Error };
          }
        });
        """

    /// One test's code, data and queue: JavaScript functions of `cloudJS` and Swift ones, a
    /// queue whose tasks call them as the host does (as the master, or as the user they name).
    final class Harness: Sendable {
        let clock = ManualQueueClock()
        let registry: FunctionRegistry
        private let box = Mutex<CloudQueue?>(nil)
        private let store: QueueTestData

        var queue: CloudQueue { box.withLock { $0! } }
        var data: DataService { store.data }

        init(swift: FunctionRegistry = FunctionRegistry()) async throws {
            store = try await QueueTestData()
            var registry = swift
            _ = try await JavaScriptFunctions.load(
                files: [("cloud.js", Self.code)], into: &registry, timeout: .seconds(15), logger: Logger(label: "test"))
            self.registry = registry
            let queue = CloudQueue(
                data: store.data, clock: clock, settings: QueueSettings(), invoker: { [self] in await self.invoke($0) },
                logger: Logger(label: "test.queue"))
            box.withLock { $0 = queue }
        }

        static var code: String { JavaScriptQueueTests.cloudJS }

        /// A task's run: the function as the master, or as the task's user.
        private func invoke(_ invocation: TaskInvocation) async -> (outcome: TaskOutcome, logs: [String]) {
            var caller = Caller(isMaster: invocation.userId == nil, environment: invocation.environment)
            if let id = invocation.userId { caller.user = ["objectId": .string(id)] }
            do {
                let result = try await call(invocation.function, params: invocation.params, caller: caller, environment: invocation.environment)
                return (.success(result), [])
            } catch {
                return (.failure(statusCode: 400, code: 1, message: "\(error)", retryable: false), [])
            }
        }

        /// Calls a function as `caller` would, in `environment`, with the queue at hand.
        func call(
            _ name: String, params: JSONValue = [:], caller: Caller = Caller(isMaster: false),
            environment: EnvironmentName = .production
        ) async throws -> JSONValue {
            let request = FunctionRequest(
                params: params, sessionToken: nil, currentUser: caller.user, isRPC: false, remoteAddress: nil,
                isMaster: caller.isMaster, environment: environment, variables: [:],
                taggedLogger: TaggedLogger(Logger(label: "test"), tags: [:]), deadline: .now + .seconds(15),
                data: DataClient(service: data, caller: caller), queue: TaskQueueClient(queue: queue, environment: environment),
                functions: registry)
            return try await registry.entries[name]!.handler(request)
        }

        /// The objects the task `work` saved, as `a` → the user it ran as (`null`: the master).
        func done() async throws -> [JSONValue] {
            let (_, objects, _) = try await data.find("Done", query: [:], caller: Caller(isMaster: true))
            return objects.map { .object($0.fields) }
        }

        func close() async { await store.close() }

        static func run(swift: FunctionRegistry = FunctionRegistry(), _ body: (Harness) async throws -> Void) async throws {
            let harness = try await Harness(swift: swift)
            do {
                try await body(harness)
            } catch {
                await harness.close()
                throw error
            }
            await harness.close()
        }
    }

    @Test func aTaskQueuedWithTheSDKsCallShapesRunsAndItsInfoIsLeanEngines() async throws {
        try await Harness.run { harness in
            // A client's call (no master key) of a function that enqueues: the SDK's answer.
            let answer = try await harness.call("enqueue", params: ["id": "x"])
            #expect(answer == ["uniqueId": "x"])
            let stored = try #require(try await harness.queue.task(uniqueId: "x"))
            #expect(stored.function == "work" && stored.params == ["a": 1] && stored.attempts == 2)
            #expect(stored.backoff == .seconds(1) && stored.environment == .production && stored.origin == .code)
            // Not run yet: LeanEngine's status while a task waits.
            let waiting = try await harness.call("info", params: ["id": "x"])
            #expect(waiting["status"] == "queued" && waiting["finishedIsDate"] == false, "\(waiting)")

            #expect(await harness.queue.runDue() == 1)
            // It ran as the master, not as the caller of the function that queued it.
            #expect(try await harness.done().map { $0["a"] } == [1])
            #expect(try await harness.done().first?["user"] == .null)
            let info = try await harness.call("info", params: ["id": "x"])
            #expect(info["status"] == "success" && info["result"] == "did 1" && info["finishedIsDate"] == true, "\(info)")
            // LeanEngine's fields only.
            #expect(info["keys"] == ["finishedAt", "result", "status", "statusCode", "uniqueId"], "\(info)")

            // Without a uniqueId one is made; without params the function gets {}.
            let generated = try await harness.call("enqueueWith", params: ["name": "work"])
            let id = try #require(generated["uniqueId"]?.stringValue)
            #expect(try await harness.queue.task(uniqueId: id)?.params == [:])
        }
    }

    @Test func aTaskRunsInTheEnqueuingCodesEnvironmentAsTheMasterOrTheUserTheCodeNames() async throws {
        try await Harness.run { harness in
            // Staging's code queues staging tasks; `prod` can't move them to production's code.
            _ = try await harness.call(
                "enqueueWith", params: ["name": "work", "params": ["a": 2], "options": ["uniqueId": "s", "prod": 1]],
                environment: .staging)
            #expect(try await harness.queue.task(uniqueId: "s")?.environment == .staging)
            // A signed-in client's call: the task still runs as the master (nothing of the
            // caller's identity passes to it) ...
            let client = Caller(isMaster: false, user: ["objectId": "caller1", "sessionToken": "t"])
            _ = try await harness.call("enqueue", params: ["id": "c"], caller: client)
            #expect(try await harness.queue.task(uniqueId: "c")?.userId == nil)
            // ... unless the code names a user: an objectId or an AV.User.
            _ = try await harness.call(
                "enqueueWith", params: ["name": "work", "params": ["a": 3], "options": ["uniqueId": "u", "user": "someone1"]])
            #expect(try await harness.queue.task(uniqueId: "u")?.userId == "someone1")
            #expect(await harness.queue.runDue() == 2)
            #expect(await harness.queue.runDue() == 1)
            let users = try await harness.done().map { ($0["a"]?.intValue ?? 0, $0["user"]) }.sorted { $0.0 < $1.0 }
            #expect(users.map(\.0) == [1, 2, 3] && users.map(\.1) == [.null, .null, "someone1"], "\(users)")
        }
    }

    @Test func badOptionsDuplicatesAndUnknownTasksAreRefusedWithLeanCloudsCodes() async throws {
        try await Harness.run { harness in
            _ = try await harness.call("enqueue", params: ["id": "dup"])
            let refusals: [(JSONValue, Int, String)] = [
                (["name": "work", "options": ["uniqueId": "dup"]], 137, "dup"),
                (["name": "work", "options": ["attempts": 11]], 1, "attempts"),
                (["name": "work", "options": ["attempts": "2"]], 1, "attempts"),
                (["name": "work", "options": ["backoff": -1]], 1, "backoff"),
                (["name": "work", "options": ["delay": 1e12]], 1, "delay"),
                (["name": "work", "options": ["timeout": 999]], 1, "timeout"),
                (["name": "work", "options": ["uniqueId": "a/b"]], 1, "uniqueId"),
                (["name": "work", "options": ["uniqueId": .string(String(repeating: "u", count: 33))]], 1, "uniqueId"),
                (["name": "work", "options": ["deliveryMode": "twice"]], 1, "deliveryMode"),
                (["name": "work", "params": [1, 2]], 1, "params"),
                (["name": "work", "params": ["big": .string(String(repeating: "x", count: 40_000))]], 1, "params"),
                (["name": "work", "options": ["user": "../_User"]], 1, "user"),
                (["name": "work", "options": ["user": ["name": "no id"]]], 106, "objectId"),
                (["name": ""], -1, "function name"),
                (["info": "nope"], 404, "nope"),
                (["info": "../x"], 1, "uniqueId"),
            ]
            for (params, code, text) in refusals {
                let answer = try await harness.call("refused", params: params)
                #expect(answer["code"]?.intValue == Int64(code) && answer["isAVError"] == true, "\(params): \(answer)")
                #expect(answer["message"]?.stringValue?.contains(text) == true, "\(params): \(answer)")
            }
            // Only the first was stored.
            #expect(try await harness.queue.tasks(status: nil, limit: 100, after: nil).map(\.uniqueId) == ["dup"])
        }
    }

    @Test func codeReadsOnlyItsOwnEnvironmentsTasks() async throws {
        try await Harness.run { harness in
            _ = try await harness.call("enqueue", params: ["id": "prod1"])
            let fromStaging = try await harness.call("refused", params: ["info": "prod1"], environment: .staging)
            #expect(fromStaging["code"] == 404, "\(fromStaging)")
            // Staging's code has its own uniqueIds: the same id is a task of its own.
            _ = try await harness.call("enqueue", params: ["id": "prod1"], environment: .staging)
            #expect(try await harness.queue.task(uniqueId: "prod1", in: .staging)?.environment == .staging)
            #expect(try await harness.call("info", params: ["id": "prod1"])["status"] == "queued")
        }
    }

    @Test func codeWithoutAQueueIsToldSo() async throws {
        try await Harness.run { harness in
            let request = FunctionRequest(
                params: ["name": "work"], sessionToken: nil, currentUser: nil, isRPC: false, remoteAddress: nil, isMaster: false,
                environment: .production, variables: [:], taggedLogger: TaggedLogger(Logger(label: "test"), tags: [:]),
                deadline: .now + .seconds(15), data: DataClient(service: harness.data, caller: Caller(isMaster: false)),
                functions: harness.registry)
            let answer = try await harness.registry.entries["refused"]!.handler(request)
            #expect(answer["code"] == 108, "\(answer)")
        }
    }

    @Test func swiftFunctionsQueueThroughTheirRequest() async throws {
        var swift = FunctionRegistry()
        swift.define("queueFromSwift") { request in
            let record = try await request.queue.enqueue(TaskRequest(function: "work", params: ["a": 7], attempts: 3, uniqueId: "sw"))
            let info = try await request.queue.taskInfo(uniqueId: record.uniqueId)
            return ["uniqueId": .string(record.uniqueId), "status": info["status"] ?? .null]
        }
        try await Harness.run(swift: swift) { harness in
            let answer = try await harness.call("queueFromSwift", environment: .staging)
            #expect(answer == ["uniqueId": "sw", "status": "queued"])
            let record = try #require(try await harness.queue.task(uniqueId: "sw"))
            #expect(record.environment == .staging && record.origin == .code && record.attempts == 3)
        }
    }
}
