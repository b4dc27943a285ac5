import CloudQueue
import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import Hooks
import JSON
import TestSupport
import Testing

/// The Cloud Queue end to end: tasks enqueued over REST run through the host's invoker (Swift
/// and JavaScript), retry, dead-letter and come back, as the master or as a user; the clock is
/// moved by hand and the test waits on each attempt's end.
@Suite struct CloudQueueHTTPTests {
    static let tasks = "/1.1/engine/cloud-queue/tasks"

    static var registry: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.define("double") { request -> JSONValue in
            request.logger.info("doubling \(request.params["n"]?.intValue ?? 0)")
            return .int((request.params["n"]?.intValue ?? 0) * 2)
        }
        registry.define("flaky", options: .init(isInternal: true)) { _ -> String in
            throw CloudError(code: 42, message: "Not yet.", status: .conflict)
        }
        registry.define("touch") { request -> JSONValue in
            let id = request.params["id"]?.stringValue ?? ""
            _ = try await request.data.update("Locked", id: id, ["touched": true])
            return "touched"
        }
        registry.define("stamp") { request -> JSONValue in
            let stamp = try await request.data.create("Stamp", ["note": "from a task"])
            return [
                "id": .string(stamp.objectId), "user": request.currentUser?["username"] ?? .null, "master": .bool(request.isMaster),
                "token": .string(request.sessionToken ?? request.currentUser?["sessionToken"]?.stringValue ?? "none"),
            ]
        }
        registry.hooks.beforeSave("Stamp") { request in
            request.object["by"] = request.user?["objectId"] ?? "nobody"
        }
        return registry
    }

    /// Runs `body` against a server with the queue on the fixture's clock and a JavaScript function.
    static func run(
        javaScriptTimeout: Duration = .seconds(15), _ body: @Sendable (API, QueueFixture) async throws -> Void
    ) async throws {
        let fixture = QueueFixture()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let code = """
            AV.Cloud.define('jsDouble', async (request) => {
              console.log('js doubling ' + request.params.n);
              return request.params.n * 2;
            });
            AV.Cloud.afterSave('Order', async (request) => {
              await AV.Cloud.enqueue('jsDouble', { n: request.object.get('n') }, { uniqueId: 'order-' + request.object.id });
            });
            AV.Cloud.define('jsSlow', async (request) => {
              const start = Date.now();
              while (Date.now() - start < request.params.ms) {}
              return 'done';
            });
            """
        try code.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        try await TestServer.run(
            dataDirectory: directory, functions: registry, functionsDirectory: directory, javaScriptTimeout: javaScriptTimeout,
            configure: fixture.configure
        ) { api in try await body(api, fixture) }
    }

    static func enqueue(_ api: API, _ body: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let reply = try await api.post(tasks, headers: Headers.master, body)
        #expect(reply.status == .ok, "\(reply)", sourceLocation: sourceLocation)
        return try #require(reply["uniqueId"]?.stringValue, "\(reply)", sourceLocation: sourceLocation)
    }

    static func status(_ api: API, _ id: String) async throws -> JSONValue {
        let reply = try await api.get(tasks + "/" + id)
        #expect(reply.status == .ok, "\(reply)")
        return try #require(reply.json)
    }

    @Test func swiftAndJavaScriptTasksRunAndAnswerTheirResults() async throws {
        try await Self.run { api, fixture in
            let swift = try await Self.enqueue(api, ["function": "double", "params": ["n": 4]])
            let script = try await Self.enqueue(api, ["function": "jsDouble", "params": ["n": 5], "uniqueId": "js-task_1"])
            #expect(script == "js-task_1")
            let swiftAttempts = await fixture.waitForAttempts(swift, count: 1)
            let scriptAttempts = await fixture.waitForAttempts(script, count: 1)
            #expect(swiftAttempts.map(\.outcome) == [.success])
            #expect(scriptAttempts.map(\.outcome) == [.success])
            #expect(swiftAttempts.first?.logs.contains { $0.contains("doubling 4") } == true, "\(swiftAttempts)")
            #expect(scriptAttempts.first?.logs.contains { $0.contains("js doubling 5") } == true, "\(scriptAttempts)")
            // The client key polls the status, with LeanEngine's fields only.
            let done = try await Self.status(api, swift)
            #expect(done["status"] == "success")
            #expect(done["result"] == 8)
            #expect(done["statusCode"] == 200)
            #expect(isCanonicalISODate(done["finishedAt"]?.stringValue))
            #expect(fieldNames(done).isSubset(of: ["uniqueId", "status", "finishedAt", "statusCode", "result", "error", "retryAt"]))
            #expect(try await Self.status(api, script)["result"] == 10)
            // The function logs show the task's calls, tagged with the task.
            let logs = try await api.get("/1.1/engine/logs?environment=production", headers: Headers.master)
            #expect(logs.text.contains("doubling 4") && logs.text.contains(swift), "\(logs)")
            // And the metrics count them.
            let metrics = try await api.get("/metrics", headers: Headers.master)
            #expect(metrics.text.contains("functionhost_queue_tasks_total{outcome=\"success\"} 2"), "\(metrics.text)")
            #expect(metrics.text.contains("functionhost_queue_delay_seconds_count"))
            #expect(metrics.text.contains("functionhost_queue_waiting_tasks"))
        }
    }

    @Test func aHookEnqueuesLikeAFunctionAndTheMasterReadsTheWholeRecord() async throws {
        try await Self.run { api, fixture in
            // LeanEngine's hooks enqueue as its functions do (the afterSave above).
            let saved = try await api.post("/1.1/classes/Order", ["n": 21])
            #expect(saved.status == .created, "\(saved)")
            let id = "order-" + (saved["objectId"]?.stringValue ?? "")
            #expect(await fixture.waitForAttempts(id, count: 1).map(\.outcome) == [.success])
            // A client's poll gets LeanEngine's fields, whatever it asks for.
            let client = try await api.get(Self.tasks + "/" + id + "?detail=1")
            #expect(client["result"] == 42 && client["history"] == nil && client["function"] == nil, "\(client)")
            // The master's `?detail=1` gets the record with its attempts (`functionhost tasks show`).
            let master = try await api.get(Self.tasks + "/" + id + "?detail=1", headers: Headers.master)
            #expect(master["function"] == "jsDouble" && master["origin"] == "code", "\(master)")
            #expect(master["history"]?.arrayValue?.map { $0["outcome"] } == ["success"], "\(master)")
            #expect(try await api.get(Self.tasks + "/" + id, headers: Headers.master)["history"] == nil)
        }
    }

    @Test func aFailingTaskRetriesAfterItsBackoffThenDeadLettersAndRetryBringsItBack() async throws {
        try await Self.run { api, fixture in
            // An internal function: the queue calls it as LeanEngine's queue does, with the host's rights.
            let id = try await Self.enqueue(api, ["function": "flaky", "attempts": 2, "backoff": 60_000])
            _ = await fixture.waitForAttempts(id, count: 1)
            let waiting = try await Self.status(api, id)
            #expect(waiting["status"] == "queued", "\(waiting)")
            #expect(waiting["error"]?.stringValue?.contains("Not yet.") == true, "\(waiting)")
            #expect(waiting["retryAt"]?.stringValue != nil)
            // Not before its back-off.
            #expect(fixture.attempts(of: id).count == 1)
            // The clock moves on while the queue idles, until the retry is due and has run.
            let attempts = await fixture.waitForAttempts(id, count: 2)
            #expect(attempts.count == 2 && attempts[1].startedAt.timeIntervalSince(attempts[0].startedAt) >= 60, "\(attempts)")
            #expect(attempts.map(\.outcome) == [.error, .error])
            #expect(attempts.map(\.statusCode) == [409, 409])
            let failed = try await Self.status(api, id)
            #expect(failed["status"] == "failed", "\(failed)")
            #expect(failed["statusCode"] == 409)
            #expect(failed["retryAt"] == nil)
            // The dead letter is listed to the master key, and retried.
            let list = try await api.get(Self.tasks + "?status=failed", headers: Headers.master)
            #expect(list.status == .ok, "\(list)")
            #expect(list.results.map { $0["uniqueId"] } == [.string(id)])
            #expect(list.results.first?["history"]?.arrayValue?.count == 2)
            #expect(list.results.first?["function"] == "flaky")
            let retried = try await api.post(Self.tasks + "/" + id + "/retry", headers: Headers.master, [:])
            #expect(retried.status == .ok, "\(retried)")
            #expect(retried["status"] == "queued")
            _ = await fixture.waitForAttempts(id, count: 3)
            // Removed, it is gone.
            #expect(try await api.delete(Self.tasks + "/" + id, headers: Headers.master).status == .ok)
            expectError(try await api.get(Self.tasks + "/" + id), code: 404, status: .notFound)
        }
    }

    @Test func aTaskRunsAsItsUserUnderTheirRightsAndWithoutOneAsTheMaster() async throws {
        try await Self.run { api, fixture in
            let (userId, _) = try await FileFixture.signUp(api, "alice")
            // An object everyone may read and only the master key may write.
            let locked = try await api.create("Locked", ["touched": false, "ACL": ["*": ["read": true]]], headers: Headers.master)
            let asUser = try await Self.enqueue(api, ["function": "touch", "params": ["id": .string(locked)], "user": .string(userId)])
            let userAttempts = await fixture.waitForAttempts(asUser, count: 1)
            #expect(userAttempts.map(\.outcome) == [.error], "\(userAttempts)")
            #expect(try await api.fetch("Locked", locked)["touched"] == false, "the user's rights held")
            let asMaster = try await Self.enqueue(api, ["function": "touch", "params": ["id": .string(locked)]])
            #expect(await fixture.waitForAttempts(asMaster, count: 1).map(\.outcome) == [.success])
            #expect(try await api.fetch("Locked", locked)["touched"] == true)
            _ = try await api.create("Stamp", ["note": "seed"], headers: Headers.master)
            // Its writes run the hooks, which see the task's user (a pointer form names it too).
            let stampAsUser = try await Self.enqueue(
                api, ["function": "stamp", "user": ["__type": "Pointer", "className": "_User", "objectId": .string(userId)]])
            _ = await fixture.waitForAttempts(stampAsUser, count: 1)
            let userStamp = try await Self.status(api, stampAsUser)
            #expect(userStamp["result"]?["user"] == "alice", "\(userStamp)")
            #expect(userStamp["result"]?["master"] == false)
            // It acts as the user without holding the user's session: code that names a user
            // can't sign in as them.
            #expect(userStamp["result"]?["token"] == "none", "\(userStamp)")
            let stampId = try #require(userStamp["result"]?["id"]?.stringValue)
            #expect(try await api.fetch("Stamp", stampId)["by"] == .string(userId))
            let stampAsMaster = try await Self.enqueue(api, ["function": "stamp"])
            _ = await fixture.waitForAttempts(stampAsMaster, count: 1)
            let masterStamp = try await Self.status(api, stampAsMaster)
            #expect(masterStamp["result"]?["master"] == true, "\(masterStamp)")
            #expect(masterStamp["result"]?["user"] == .null)
            let masterStampId = try #require(masterStamp["result"]?["id"]?.stringValue)
            #expect(try await api.fetch("Stamp", masterStampId)["by"] == "nobody")
        }
    }

    /// A task's own time limit bounds its JavaScript call, not the client calls' limit: the
    /// sandbox's deadline (and its CPU budget) follow the task's timeout.
    @Test func aTaskTimeoutLongerThanTheJavaScriptLimitApplies() async throws {
        try await Self.run(javaScriptTimeout: .milliseconds(500)) { api, fixture in
            let call = try await api.post("/1.1/functions/jsSlow", ["ms": 900])
            #expect(call.status == .serviceUnavailable && call["code"] == 124, "a client's call keeps its own limit: \(call)")
            let id = try await Self.enqueue(api, ["function": "jsSlow", "params": ["ms": 900], "timeout": 5000])
            let attempts = await fixture.waitForAttempts(id, count: 1)
            #expect(attempts.map(\.outcome) == [.success], "\(attempts)")
            #expect(try await Self.status(api, id)["result"] == "done")
        }
    }
}
