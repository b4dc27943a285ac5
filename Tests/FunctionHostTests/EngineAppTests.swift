import Foundation
import FunctionHost
import HTTPTypes
import JSON
import Testing
import TestSupport

/// An app's own LeanEngine process beside the host: a real app written with LeanCloud's Python
/// SDK (`Tests/EngineApps/python`), started by the host, called for its functions and hooks as
/// LeanCloud's platform called it, writing back through the SDK.
@Suite struct EngineAppTests {
    /// A server whose production engine is the Python app `production` (and staging's `staging`
    /// when asked), reached over a socket on a port the engine is told (`LEANCLOUD_API_SERVER`).
    static func withEngine<Value: Sendable>(
        staging: Bool = false, functionsDirectory: String? = nil, functions: FunctionRegistry = FunctionRegistry(),
        javaScriptTimeout: Duration = .seconds(15), configure: @escaping (inout HostConfiguration) -> Void = { _ in },
        _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        try await EngineAppFixture.preparePython()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = Ports.free()
        return try await TestServer.run(
            dataDirectory: directory, functions: functions, functionsDirectory: functionsDirectory,
            javaScriptTimeout: javaScriptTimeout, transport: .socket,
            configure: { configuration in
                configuration.port = port
                configuration.engines[.production] = EngineAppFixture.pythonApp("production")
                if staging { configuration.engines[.staging] = EngineAppFixture.pythonApp("staging") }
                configure(&configuration)
            }, body)
    }

    @Test func functionsAreCalledWithTheCallersSessionAndTheirErrorsKept() async throws {
        try await Self.withEngine { api in
            let hello = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            #expect(hello.status == .ok, "\(hello)")
            // Transport fields (`_x`) are not parameters, as LeanEngine drops them.
            let named = try await api.post("/1.1/functions/hello", ["name": "ada", "_SessionToken": "", "_x": 1])
            #expect(named["result"] == ["hello": "ada", "env": "production", "keys": ["name"]], "\(named)")

            let user = try await api.post("/1.1/users", ["username": "ada", "password": "secret-1"])
            let token = try #require(user["sessionToken"]?.stringValue)
            // The engine fetches the session's user itself; the address is the one the host saw,
            // whatever the client claims.
            let whoami = try await api.post(
                "/1.1/functions/whoami",
                headers: Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Session", token), ("X-Real-IP", "6.6.6.6")]), [:])
            #expect(whoami["result"] == ["username": "ada", "remote": "127.0.0.1"], "\(whoami)")
            // A function reading the host's data through the SDK.
            _ = try await api.post("/1.1/classes/Todo", ["title": "one"])
            let counted = try await api.post("/1.1/functions/countTodos", [:])
            #expect(counted["result"] == 1, "\(counted)")

            // The engine's own error, code and status as it answered them; a crash is its 141.
            expectError(try await api.post("/1.1/functions/refuse", [:]), code: 123, status: .badRequest)
            let crashed = try await api.post("/1.1/functions/crash", [:])
            #expect(crashed.status == .internalServerError && crashed["code"] == 141, "\(crashed)")
        }
    }

    @Test func classHooksChangeRefuseAndWriteBackThroughTheSDK() async throws {
        let code = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: code) }
        // In-process JavaScript writes a Todo: the engine's hooks run on it too.
        try """
            AV.Cloud.define('makeTodo', async (request) => {
              const todo = new AV.Object('Todo');
              todo.set('title', '  from js  ');
              await todo.save();
              return todo.id;
            });
            """.write(toFile: "\(code)/cloud.js", atomically: true, encoding: .utf8)
        try await Self.withEngine(functionsDirectory: code) { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            // beforeSave: the engine's changes are what is written; its refusal is LeanCloud's 142.
            let created = try await api.post("/1.1/classes/Todo", ["title": "  trim me  "])
            #expect(created.status == .created, "\(created)")
            let id = try #require(created.objectId)
            let stored = try await api.get("/1.1/classes/Todo/\(id)", headers: Headers.master)
            #expect(stored["title"] == "trim me" && stored["checkedBy"] == "python", "\(stored)")
            let refused = try await api.post("/1.1/classes/Todo", [:])
            expectError(refused, code: 142, status: .badRequest)
            #expect(refused["error"] == "Cloud Code validation failed. Error detail: a todo needs a title", "\(refused)")
            #expect(try await api.count("Todo") == 1)

            // afterSave wrote a TodoLog back through the SDK (the response waits for it).
            let logs = try await api.get("/1.1/classes/TodoLog", headers: Headers.master)
            #expect(logs.results.map { $0["todoId"] } == [.string(id)], "\(logs)")

            // beforeUpdate refuses by the updated keys; afterUpdate saves the object it was handed,
            // which doesn't run the hook again (the SDK marks it): `updates` ends at 1.
            expectError(try await api.put("/1.1/classes/Todo/\(id)", ["locked": true]), code: 142, status: .badRequest)
            let updated = try await api.put("/1.1/classes/Todo/\(id)", ["title": "renamed"])
            #expect(updated.status == .ok, "\(updated)")
            let after = try await api.get("/1.1/classes/Todo/\(id)", headers: Headers.master)
            #expect(after["updates"] == 1 && after["title"] == "renamed" && after["locked"] == nil, "\(after)")

            // beforeDelete refuses a kept todo, and it stays.
            let kept = try #require(try await api.post("/1.1/classes/Todo", ["title": "keep", "keep": true]).objectId)
            expectError(try await api.delete("/1.1/classes/Todo/\(kept)"), code: 142, status: .badRequest)
            #expect(try await api.get("/1.1/classes/Todo/\(kept)", headers: Headers.master).status == .ok)

            // A write from in-process JavaScript runs the engine's hooks as a client's does.
            let made = try await api.post("/1.1/functions/makeTodo", [:])
            let jsId = try #require(made["result"]?.stringValue, "\(made)")
            let fromJS = try await api.get("/1.1/classes/Todo/\(jsId)", headers: Headers.master)
            #expect(fromJS["title"] == "from js" && fromJS["checkedBy"] == "python", "\(fromJS)")
        }
    }

    @Test func onLoginRefusesALoginAsUnauthorized() async throws {
        try await Self.withEngine { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            #expect(try await api.post("/1.1/users", ["username": "blocked", "password": "secret-1"]).status == .created)
            let refused = try await api.post("/1.1/login", ["username": "blocked", "password": "secret-1"])
            #expect(refused.status == .unauthorized && refused["code"] == 142, "\(refused)")
            #expect(try await api.post("/1.1/users", ["username": "welcome", "password": "secret-1"]).status == .created)
            #expect(try await api.post("/1.1/login", ["username": "welcome", "password": "secret-1"]).status == .ok)
        }
    }

    @Test func onVerifiedAndOnAuthDataRunOnTheEngine() async throws {
        try await Self.withEngine { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            // onAuthData checks and rewrites a third-party login.
            let signup = try await api.post("/1.1/users", ["authData": ["weixin": ["openid": "wx-9"]]])
            #expect(signup.status == .created, "\(signup)")
            let me = try await api.get("/1.1/users/me", headers: Headers.session(try #require(signup["sessionToken"]?.stringValue)))
            #expect(me["authData"]?["weixin"]?["checked"] == true, "\(me)")
            let blocked = try await api.post("/1.1/users", ["authData": ["weixin": ["openid": "blocked"]]])
            #expect(blocked.status == .badRequest && blocked["error"]?.stringValue?.contains("Blocked account.") == true, "\(blocked)")
            // onVerified('sms') runs once the phone is verified, and writes back through the SDK.
            let user = try await api.post("/1.1/users", ["username": "ada", "password": "pw-secret", "mobilePhoneNumber": "13900000001"])
            _ = try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": "13900000001"])
            let code = try await Outbox.lastCode(api, to: "13900000001")
            #expect(try await api.post("/1.1/verifyMobilePhone/\(code)", [:]).status == .ok)
            let welcomes = try await api.get("/1.1/classes/Welcome", headers: Headers.master).results
            #expect(welcomes.count == 1 && welcomes.first?["user"] == user["objectId"], "\(welcomes)")
            #expect(welcomes.first?["phone"] == "13900000001")
        }
    }

    @Test func stagingAndProductionRunTheirOwnEngines() async throws {
        try await Self.withEngine(staging: true) { api in
            let staging = Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Prod", "0")])
            let production = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            #expect(production["result"]?["env"] == "production", "\(production)")
            let reply = try await EngineAppFixture.waitUntilServing(api, function: "hello", headers: staging)
            #expect(reply["result"] == ["staging": true, "env": "stage"], "\(reply)")
            // Each engine serves only its own names: staging's has no `whoami`.
            expectError(try await api.post("/1.1/functions/whoami", headers: staging, [:]), code: 1, status: .notFound)
        }
    }

    @Test func anEngineKilledMidTrafficAnswers503AtOnceRefusesHookedWritesAndComesBack() async throws {
        try await Self.withEngine { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            // The process dies in the middle of a call.
            let died = try await api.post("/1.1/functions/exitNow", [:])
            #expect(died.status == .serviceUnavailable && died["code"] == 1, "\(died)")
            // While it is down (or back already), nothing is written unchecked: a write is either
            // refused with 503 or checked by the engine's beforeSave.
            let write = try await api.post("/1.1/classes/Todo", ["title": "  during  "])
            if write.status == .created {
                let stored = try await api.get("/1.1/classes/Todo/\(try #require(write.objectId))", headers: Headers.master)
                #expect(stored["checkedBy"] == "python", "\(stored)")
            } else {
                #expect(write.status == .serviceUnavailable && write["code"] == 142, "\(write)")
                // Nothing was stored: the class doesn't even exist yet.
                #expect((try await api.count("Todo") ?? 0) == 0)
            }
            // The host starts it again, and its functions answer once more.
            let back = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            #expect(back.status == .ok, "\(back)")
            let logs = try await api.get("/1.1/engine/logs?environment=production", headers: Headers.master)
            #expect(logs.text.contains("engine listening on"), "the engine's output is in the function logs")
        }
    }
}
