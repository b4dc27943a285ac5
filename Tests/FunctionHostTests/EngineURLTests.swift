import Foundation
import HTTPTypes
import JSON
import Testing
import TestSupport

@testable import FunctionHost

/// An engine someone else runs (`--engine-url`): the host calls it at its address, registers its
/// names once it first answers, and treats it as down (503 at once, before-hooked writes refused)
/// when it stops answering.
@Suite struct EngineURLTests {
    @Test func anEngineAtAURLIsCalledAndRefusedWritesWhileItIsGone() async throws {
        // The app as its operator runs it, with LeanEngine's variables pointing at the host.
        try await Self.withEngineAtURL("production") { api, engine, _, _ in
            let hello = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            #expect(hello["result"]?["env"] == "production", "\(hello)")
            // Its hooks run on writes.
            let created = try await api.post("/1.1/classes/Todo", ["title": "  trim me  "])
            let stored = try await api.get("/1.1/classes/Todo/\(try #require(created.objectId))", headers: Headers.master)
            #expect(stored["checkedBy"] == "python", "\(stored)")

            // Its operator stops it: calls answer 503 at once, before-hooked writes are refused.
            await engine.stop(grace: .seconds(5))
            let gone = try await api.post("/1.1/functions/hello", [:])
            #expect(gone.status == .serviceUnavailable, "\(gone)")
            let write = try await api.post("/1.1/classes/Todo", ["title": "unchecked?"])
            #expect(write.status == .serviceUnavailable && write["code"] == 142, "\(write)")
            #expect(try await api.count("Todo") == 1)
        }
    }

    /// SIGHUP asks every engine for its names again: an engine someone else replaced with other
    /// code is registered anew.
    @Test func aHangUpReadsTheEnginesNamesAgain() async throws {
        try await Self.withEngineAtURL("staging") { api, first, enginePort, hostPort in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            // The staging app defines no `whoami`: the host doesn't know it.
            expectError(try await api.post("/1.1/functions/whoami", [:]), code: 1, status: .notFound)
            // Its operator replaces it with the production app on the same port.
            await first.stop(grace: .seconds(5))
            let second = try Self.start("production", port: enginePort, hostPort: hostPort)
            defer { Task { await second.stop(grace: .zero) } }
            // Once the new app serves its names (the old one may still be closing its socket).
            let probe = EngineApp(
                environment: .production, baseURL: "http://127.0.0.1:\(enginePort)",
                keys: .init(appId: "app", appKey: "key", masterKey: "master", hookKey: "hook"))
            let ready = ContinuousClock.now + .seconds(60)
            while ((try? await probe.fetchNames(deadline: .now + .seconds(2))) ?? []).contains("whoami") == false, ContinuousClock.now < ready {
                try await Task.sleep(for: .milliseconds(50))
            }
            kill(getpid(), SIGHUP)
            let deadline = ContinuousClock.now + .seconds(60)
            var reply = try await api.post("/1.1/functions/whoami", [:])
            while reply.status == .notFound, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                reply = try await api.post("/1.1/functions/whoami", [:])
            }
            #expect(reply.status == .ok, "\(reply)")
        }
    }

    /// A host whose production engine is at a URL, where the test app `app` runs (stopped after).
    static func withEngineAtURL(_ app: String, _ body: @Sendable (API, EngineProcess, Int, Int) async throws -> Void) async throws {
        try await EngineAppFixture.preparePython()
        let hostPort = Ports.free(), enginePort = Ports.free()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let engine = try start(app, port: enginePort, hostPort: hostPort)
        do {
            try await TestServer.run(
                dataDirectory: directory, transport: .socket,
                configure: { configuration in
                    configuration.port = hostPort
                    configuration.engines[.production] = EngineSetting(.url("http://127.0.0.1:\(enginePort)"))
                }
            ) { api in try await body(api, engine, enginePort, hostPort) }
        } catch {
            await engine.stop(grace: .zero)
            throw error
        }
        await engine.stop(grace: .zero)
    }

    /// A Python test app as its operator runs it, with LeanEngine's variables pointing at the host.
    static func start(_ app: String, port: Int, hostPort: Int) throws -> EngineProcess {
        let keys = TestServer.keys
        return try EngineProcess(
            command: EngineBundles.pythonCommand, directory: "\(SMTPTestServer.root)/Tests/EngineApps/python/\(app)",
            environment: EngineRunner.hostEssentials.merging([
                "LEANCLOUD_APP_ID": keys.appId, "LEANCLOUD_APP_KEY": keys.appKey, "LEANCLOUD_APP_MASTER_KEY": keys.masterKey,
                "LEANCLOUD_APP_HOOK_KEY": keys.hookKey, "LEANCLOUD_APP_PORT": String(port),
                "LEANCLOUD_API_SERVER": "http://127.0.0.1:\(hostPort)", "LEANCLOUD_APP_ENV": "production",
            ]) { $1 }, output: { _, _ in })
    }
}
