import AsyncHTTPClient
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import NIOCore
import NIOHTTP1
import Testing
import TestSupport

/// What a client holding the app key can't do through an app's engine: reach its hooks or
/// realtime hooks as functions, reload it, make the host wait past a deadline or hold an
/// answer past LeanEngine's limit; and what the engine can't see: the host's own secrets.
@Suite struct EngineAppAttackTests {
    @Test func hooksAndRealtimeHooksAreNotFunctionsAndReloadNeedsTheMasterKey() async throws {
        try await EngineAppTests.withEngine { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            // The engine lists them; the host runs the hook on writes and never as a function.
            for name in ["__before_save_for_Todo", "_clientOnline"] {
                expectError(try await api.post("/1.1/functions/\(name)", [:]), code: 1, status: .notFound)
                expectError(try await api.post("/1.1/functions/\(name)", headers: Headers.master, [:]), code: 1, status: .notFound)
            }
            // The host's own hook endpoint wants the hook key, which a client doesn't have.
            let hook = try await api.post("/1.1/functions/Todo/beforeSave", ["object": ["title": "x"]])
            #expect(hook.status == .unauthorized, "\(hook)")

            expectError(try await api.post("/1.1/engine/app/reload", [:]), code: 401, status: .unauthorized)
            let reloaded = try await api.post("/1.1/engine/app/reload", headers: Headers.master, ["environment": "production"])
            #expect(reloaded.status == .ok, "\(reloaded)")
            let names = reloaded["production"]?["names"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(names.contains("hello") && names.contains("__before_save_for_Todo"), "\(reloaded)")
            expectError(try await api.post("/1.1/engine/app/reload", headers: Headers.master, ["environment": "staging"]), code: 1, status: .notFound)
            expectError(try await api.post("/1.1/engine/app/reload", headers: Headers.master, ["environment": 7]), code: 107)
        }
    }

    @Test func theEngineSeesLeanEnginesVariablesAndNoneOfTheHostsSecrets() async throws {
        try await EngineAppTests.withEngine { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            let reply = try await api.post("/1.1/functions/environ", [:])
            let names = Set(reply["result"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            for name in ["LEANCLOUD_APP_ID", "LEANCLOUD_APP_KEY", "LEANCLOUD_APP_MASTER_KEY", "LEANCLOUD_APP_HOOK_KEY", "LEANCLOUD_APP_PORT", "LEANCLOUD_API_SERVER", "LEANCLOUD_APP_ENV"] {
                #expect(names.contains(name), "\(name) in \(names.sorted())")
            }
            // Nothing else of the host's environment (its database URL, its SMTP password) reaches
            // it: only what a process needs to run, and what the shells on the way set themselves.
            let allowed: Set<String> = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "PWD", "OLDPWD", "SHLVL", "_"]
            let others = names.filter { !$0.hasPrefix("LEANCLOUD_") && !$0.hasPrefix("LC_") && !allowed.contains($0) }
            #expect(others.isEmpty, "\(others.sorted())")
        }
    }

    @Test func aSlowEngineEndsAtTheDeadlineAndAHugeAnswerIsRefused() async throws {
        // A deadline well under the slow call's 30 s, and long enough for the engine to build its
        // huge answer on a busy machine (at 2 s it could time out first: 503 in place of 502).
        try await EngineAppTests.withEngine(javaScriptTimeout: .seconds(8)) { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            let started = ContinuousClock.now
            let slow = try await api.post("/1.1/functions/slow", ["seconds": 30])
            #expect(slow.status == .serviceUnavailable && slow["code"] == 124, "\(slow)")
            #expect(started.duration(to: .now) < .seconds(25), "the call ended at its deadline, not the engine's 30 s")
            let big = try await api.post("/1.1/functions/big", [:])
            #expect(big.status == .badGateway && big["code"] == 1, "\(big.status) \(big.text.prefix(200))")
            // The engine still serves.
            #expect(try await api.post("/1.1/functions/hello", [:]).status == .ok)
        }
    }

    @Test func aNameDefinedInProcessAndByTheEngineKeepsTheInProcessOneAndIsReported() async throws {
        var functions = FunctionRegistry()
        functions.define("hello") { _ in "swift hello" }
        try await EngineAppTests.withEngine(functions: functions) { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "whoami")
            #expect(try await api.post("/1.1/functions/hello", [:])["result"] == "swift hello")
            let reloaded = try await api.post("/1.1/engine/app/reload", headers: Headers.master, [:])
            #expect(reloaded["production"]?["clashes"] == ["hello"], "\(reloaded)")
        }
    }
}

/// The engine's hooks are never skipped while it starts, and one client's slow calls don't hold
/// every connection to it.
@Suite struct EngineAppHoldTests {
    /// A server on `directory` whose production engine is `setting`.
    static func withEngine<Value: Sendable>(
        _ setting: EngineSetting, dataDirectory directory: String, _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        try await EngineAppFixture.preparePython()
        let port = Ports.free()
        return try await TestServer.run(
            dataDirectory: directory, transport: .socket,
            configure: { configuration in
                configuration.port = port
                configuration.engines[.production] = setting
            }, body)
    }

    /// An engine that never answers (it only sleeps).
    static var silent: EngineSetting {
        var setting = EngineSetting(.command("sleep 120", directory: "/"))
        setting.port = Ports.free()
        setting.stopGrace = .seconds(1)
        return setting
    }

    @Test func writesWaitForAnEngineThatNeverListedItsHooksAndKnownHooksRunWhileItIsDown() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Never listed on this data directory: any class's write may be checked, so none is made.
        try await Self.withEngine(Self.silent, dataDirectory: directory) { api in
            let held = try await api.post("/1.1/classes/Note", ["text": "x"])
            #expect(held.status == .serviceUnavailable && held["code"] == 142, "\(held)")
            #expect(try await api.post("/1.1/users", ["username": "ada", "password": "pw-secret"]).status == .serviceUnavailable)
        }
        // Once it has listed them, a later start runs them from what it listed, before it answers.
        try await Self.withEngine(EngineAppFixture.pythonApp("production"), dataDirectory: directory) { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
        }
        try await Self.withEngine(Self.silent, dataDirectory: directory) { api in
            let checked = try await api.post("/1.1/classes/Todo", ["title": "  unchecked?  "])
            #expect(checked.status == .serviceUnavailable && checked["code"] == 142, "\(checked)")
            let note = try await api.post("/1.1/classes/Note", ["text": "no hook on Note"])
            #expect(note.status == .created, "\(note)")
            #expect((try await api.count("Todo") ?? 0) == 0)
        }
    }

    @Test func oneClientsSlowCallsLeaveConnectionsForOthersAndForHooks() async throws {
        try await EngineAppTests.withEngine(javaScriptTimeout: .seconds(20)) { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            let port = api.port
            // Each call on a connection of its own (the test client would queue them on one, and
            // a default pool holds 8).
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 64
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            defer { _ = client.shutdown() }
            let call: @Sendable (String, String) async throws -> Reply = { function, body in
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/1.1/functions/\(function)")
                request.method = .POST
                request.headers.add(name: "X-LC-Id", value: "app")
                request.headers.add(name: "X-LC-Key", value: "key")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: body))
                let response = try await client.execute(request, timeout: .seconds(30))
                let bytes = try await response.body.collect(upTo: 1 << 20)
                return Reply(status: HTTPResponse.Status(code: Int(response.status.code)), headers: [:], bytes: Array(bytes.readableBytesView))
            }
            // More slow calls than one client may have in flight: the rest are refused at once.
            let total = EngineAppFixturePolicy.callsPerClient + 4
            let (answers, answered) = AsyncStream.makeStream(of: HTTPResponse.Status.self)
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<total {
                    group.addTask {
                        let status = try await call("slow", #"{"seconds": 6}"#).status
                        answered.yield(status)
                        return status
                    }
                }
                // Once one is refused, this client's share is full (or, without a share, all
                // answered): a write's hooks, which have connections of their own, still run.
                var seen = 0
                for await status in answers {
                    seen += 1
                    if status == .tooManyRequests || seen == total { break }
                }
                let created = try await EdgeFixture.send(port: port, .POST, "/1.1/classes/Todo", host: "127.0.0.1", body: #"{"title":"during"}"#)
                #expect(created.status == .created && created["checkedBy"] == "python", "\(created)")
                return try await group.reduce(into: [HTTPResponse.Status]()) { $0.append($1) }
            }
            answered.finish()
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 4, "\(statuses)")
            #expect(statuses.filter { $0 == .ok }.count == EngineAppFixturePolicy.callsPerClient, "\(statuses)")
        }
    }

    @Test func aSessionTokenThatCantBeAHeaderNamesNoUser() async throws {
        try await EngineAppTests.withEngine { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            let reply = try await api.send(
                .post, "/1.1/functions/whoami", headers: Headers.make([("Content-Type", "text/plain")]),
                body: #"{"_ApplicationId":"app","_ApplicationKey":"key","_SessionToken":"a b\r\nX-LC-Key: master,master"}"#)
            expectError(reply, code: 211, status: .unauthorized)
        }
    }
}

/// The engine's per-client call bound, as the tests see it.
enum EngineAppFixturePolicy {
    static let callsPerClient = 16
}
