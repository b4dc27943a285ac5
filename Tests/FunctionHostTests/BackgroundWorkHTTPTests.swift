import DataAPI
import Foundation
import HTTPTypes
import JSON
import Sandbox
import TestSupport
import Testing

@testable import FunctionHost

/// LeanEngine's sample `setTodoToDone` saves without returning the promise, and its "answer
/// first, then do the task" idiom relies on the process going on: what a call starts runs after
/// its answer, as the session it was given (never as master), and its console lines reach the
/// function log.
@Suite struct BackgroundWorkHTTPTests {
    static let script = """
        var AV = require('leanengine');

        AV.Cloud.define('setTodoToDone', function (request) {
          var todo = AV.Object.createWithoutData('Todo', request.params.id);
          todo.save({ status: 1 }, { sessionToken: request.sessionToken }).then(function () {
            console.log('todo ' + todo.id + ' set to done');
          });
          return 'ok';
        });

        // The same save forgetting the session: it acts as the app, with no user and no master key.
        AV.Cloud.define('setTodoToDoneAsApp', function (request) {
          var todo = AV.Object.createWithoutData('Todo', request.params.id);
          todo.save({ status: 1 }).then(function () { console.log('saved as the app'); },
            function (error) { console.log('refused as the app: ' + error.code); });
          return 'ok';
        });

        // Background work without end: an interval and a query loop, started on every call.
        AV.Cloud.define('flood', function () {
          setInterval(function () {}, 20);
          (function loop() { new AV.Query('Todo').find().then(loop, loop); })();
          return 'flooding';
        });

        AV.Cloud.define('ping', function () { return 'pong'; });

        // Answer first, then do the task.
        AV.Cloud.define('answerFirst', function () {
          setTimeout(function () { console.log('task done after the answer'); }, 0);
          return 'accepted';
        });
        """

    /// The JS SDK's `AV.Cloud.run('setTodoToDone', {id})` of a signed-in user.
    static func run(_ api: API, _ name: String, id: String, token: String) async throws -> Reply {
        try await api.post(
            "/1.1/functions/\(name)",
            headers: Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Session", token), ("Content-Type", "application/json")]),
            ["id": .string(id)])
    }

    /// Makes `ada`, and a Todo only she may read and write.
    static func adasTodo(_ api: API) async throws -> String {
        let ada = try await api.create("_User", ["username": "ada", "sessionToken": "tok-ada"], headers: Headers.master)
        return try await api.create(
            "Todo", ["status": 0, "ACL": [.init(stringLiteral: ada): ["read": true, "write": true]]], headers: Headers.master)
    }

    @Test func theSaveTheFunctionDidNotReturnRunsAsTheCaller() async throws {
        let log = CapturedLog()
        try await EdgeFixture.run(scripts: ["cloud.js": Self.script], logger: log) { api, _ in
            let todo = try await Self.adasTodo(api)
            let reply = try await Self.run(api, "setTodoToDone", id: todo, token: "tok-ada")
            #expect(reply.status == .ok && reply["result"] == "ok", "\(reply)")
            #expect(await log.line(containing: "todo \(todo) set to done") != nil)
            let stored = try await api.get("/1.1/classes/Todo/\(todo)", headers: JSDataServer.session("tok-ada"))
            #expect(stored["status"] == 1, "\(stored)")
            // The line logged after the answer is the function's, in its log.
            let logs = try await api.get("/1.1/engine/logs", headers: Headers.master)
            let line = logs.results.first { $0["message"]?.stringValue?.contains("set to done") == true }
            #expect(line?["source"] == "setTodoToDone", "\(logs)")
        }
    }

    @Test func backgroundWorkIsNeverMaster() async throws {
        let log = CapturedLog()
        try await EdgeFixture.run(scripts: ["cloud.js": Self.script], logger: log) { api, _ in
            let todo = try await Self.adasTodo(api)
            let reply = try await Self.run(api, "setTodoToDoneAsApp", id: todo, token: "tok-ada")
            #expect(reply["result"] == "ok", "\(reply)")
            #expect(await log.line(containing: "as the app") != nil)
            #expect(!log.lines.contains { $0.contains("saved as the app") })
            let stored = try await api.get("/1.1/classes/Todo/\(todo)", headers: Headers.master)
            #expect(stored["status"] == 0, "\(stored)")
        }
    }

    /// Attack: a client calling a function whose every call leaves endless work behind. Each
    /// call answers; the work kept is bounded in number (half the room for one function) and in
    /// time (its log says it was stopped), and another function answers meanwhile.
    @Test func endlessBackgroundWorkIsBoundedAndStarvesNoOne() async throws {
        let log = CapturedLog()
        let configure: (inout HostConfiguration) -> Void = {
            $0.javaScriptPool.backgroundTime = .seconds(1)
            $0.javaScriptPool.backgroundCalls = 4
            // A call behind the client's leases (held by background work until its 1 s bound)
            // waits for one however loaded the machine is, instead of a 429 after 5 s, and its
            // own deadline covers that wait (on a loaded machine it passed 15 s once).
            $0.javaScriptPool.queueWait = .seconds(120)
            $0.javaScriptTimeout = .seconds(120)
        }
        try await EdgeFixture.run(scripts: ["cloud.js": Self.script], configure: configure, logger: log) { api, _ in
            for _ in 0..<12 {
                let reply = try await api.post("/1.1/functions/flood", headers: Headers.client, [:])
                #expect(reply["result"] == "flooding", "\(reply)")
            }
            let ping = try await api.post("/1.1/functions/ping", headers: Headers.client, [:])
            #expect(ping.status == .ok && ping["result"] == "pong", "\(ping)")
            #expect(await log.line(containing: "background work was stopped at its answer") != nil)
            #expect(await log.line(containing: "background work was stopped 1.0 seconds after its answer") != nil)
        }
    }

    @Test func aTaskAfterTheAnswerRunsAndLogs() async throws {
        let log = CapturedLog()
        try await EdgeFixture.run(scripts: ["cloud.js": Self.script], logger: log) { api, _ in
            let reply = try await api.post("/1.1/functions/answerFirst", headers: Headers.client, [:])
            #expect(reply["result"] == "accepted", "\(reply)")
            #expect(await log.line(containing: "task done after the answer") != nil)
        }
    }
}
