import Foundation
import FunctionHost
import HTTPTypes
import JSON
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
        try await EngineAppTests.withEngine(javaScriptTimeout: .seconds(2)) { api in
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
