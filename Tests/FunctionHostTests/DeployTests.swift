import DataAPI
import Foundation
import HTTPTypes
import JSON
import Logging
import Synchronization
import TestSupport
import Testing

@testable import FunctionHost

/// Staging and production, versioned deploys, promote, rollback and variables, over real HTTP.
@Suite struct DeployTests {
    /// A bundle whose `version` function answers `tag`.
    static func bundle(_ tag: String) -> JSONValue {
        ["cloud.js": .string("AV.Cloud.define('version', function () { return '\(tag)'; });")]
    }

    /// Runs a server whose functions directory starts with the v1 bundle.
    static func run(
        directory: String? = nil, transport: TestServer.Transport = .inProcess, _ body: @Sendable (API) async throws -> Void
    ) async throws {
        let directory = try directory ?? TestServer.makeDataDirectory()
        if !FileManager.default.fileExists(atPath: directory + "/cloud.js") {
            try bundle("v1")["cloud.js"]!.stringValue!.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        }
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory, transport: transport, body)
    }

    static func version(_ api: API, headers: HTTPFields = Headers.client) async throws -> JSONValue? {
        try await api.post("/1.1/functions/version", headers: headers, [:])["result"]
    }

    static func deploy(_ api: API, _ tag: String, to environment: String = "staging") async throws -> Reply {
        try await api.post(
            "/1.1/engine/deploys", headers: Headers.master,
            ["environment": .string(environment), "message": .string("deploy \(tag)"), "files": bundle(tag)])
    }

    @Test func stagingTriesCodeThatPromoteMovesToProductionAndRollbackUndoes() async throws {
        try await Self.run { api in
            #expect(try await Self.version(api) == "v1")
            #expect(try await Self.version(api, headers: Headers.staging) == "v1")
            let deployed = try await Self.deploy(api, "v2")
            #expect(deployed.status == .created && deployed["version"] == 2 && deployed["environment"] == "staging", "\(deployed)")
            #expect(deployed["hash"]?.stringValue?.count == 64)
            #expect(try await Self.version(api, headers: Headers.staging) == "v2")
            #expect(try await Self.version(api) == "v1")

            let versions = try await api.get("/1.1/engine/deploys", headers: Headers.master)
            #expect(versions.results.map { $0["version"] } == [2, 1], "\(versions)")
            #expect(versions.results.first?["live"] == ["staging"] && versions.results.last?["live"] == ["production"])
            #expect(versions.results.first?["message"] == "deploy v2" && versions.results.first?["files"] == ["cloud.js"])
            #expect(versions.results.first?["author"] == "master key" && versions.results.last?["author"] == "host")

            let promoted = try await api.post("/1.1/engine/promote", headers: Headers.master, [:])
            #expect(promoted["version"] == 2, "\(promoted)")
            #expect(try await Self.version(api) == "v2")

            let back = try await api.post("/1.1/engine/rollback", headers: Headers.master, ["environment": "production"])
            #expect(back["version"] == 1, "\(back)")
            #expect(try await Self.version(api) == "v1")
            #expect(try await api.post("/1.1/engine/rollback", headers: Headers.master, ["environment": "production", "version": 2])["version"] == 2)
            #expect(try await Self.version(api) == "v2")
            let environments = try await api.get("/1.1/engine/environments", headers: Headers.master)
            #expect(environments["production"]?["version"] == 2 && environments["staging"]?["version"] == 2, "\(environments)")

            // Errors: no such version, no earlier version, bad environment, no master key.
            expectError(try await api.post("/1.1/engine/rollback", headers: Headers.master, ["environment": "staging", "version": 9]), code: 1, status: .notFound)
            expectError(try await api.post("/1.1/engine/rollback", headers: Headers.master, ["environment": "qa"]), code: 107)
            expectError(try await Self.deploy(api, "v3", to: "qa"), code: 107)
            expectError(try await api.post("/1.1/engine/deploys", ["environment": "staging", "files": Self.bundle("x")]), code: 401, status: .unauthorized)
            expectError(try await api.get("/1.1/engine/deploys"), code: 401)
            expectError(
                try await api.post("/1.1/engine/deploys", headers: Headers.master, ["files": ["../etc/passwd.js": "x"]]), code: 107)
        }
    }

    @Test func aBundleThatFailsToLoadIsRefusedWithItsFileAndLine() async throws {
        try await Self.run { api in
            let broken = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                ["environment": "staging", "files": ["cloud.js": "AV.Cloud.define('ok', function () { return 1 });", "lib/bad.js": "var x = 1;\nthis is not javascript"]])
            expectError(broken, code: 1, status: .badRequest)
            let message = broken["error"]?.stringValue ?? ""
            #expect(message.contains("lib/bad.js:2"), "\(message)")
            // Nothing changed: staging runs v1, and no version was stored.
            #expect(try await Self.version(api, headers: Headers.staging) == "v1")
            #expect(try await api.get("/1.1/engine/deploys", headers: Headers.master).results.count == 1)
        }
    }

    /// A JavaScript function named as a Swift function of the host is refused at deploy, with
    /// both named; at start the Swift one is kept and the clash logged.
    @Test func aNameDefinedInSwiftAndJavaScriptIsRefusedAtDeploy() async throws {
        var functions = FunctionRegistry()
        functions.define("swiftHello") { _ in "Hello world!" }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, functions: functions, functionsDirectory: directory) { api in
            let clash = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                ["environment": "staging", "files": ["cloud.js": "AV.Cloud.define('swiftHello', function () { return 'js'; });"]])
            expectError(clash, code: 1, status: .badRequest)
            let message = clash["error"]?.stringValue ?? ""
            #expect(message.contains("'swiftHello'") && message.contains("Swift") && message.contains("JavaScript"), "\(message)")
            #expect(try await api.post("/1.1/functions/swiftHello", headers: Headers.staging, [:])["result"] == "Hello world!")
        }
    }

    @Test func versionsSurviveARestartAndChangedFilesBecomeANewVersion() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.run(directory: directory) { (api: API) async throws in
            let deployed = try await Self.deploy(api, "v2")
            #expect(deployed.status == .created)
        }
        // Same files in the directory: staging keeps the deployed version.
        try await Self.run(directory: directory) { (api: API) async throws in
            let staging = try await Self.version(api, headers: Headers.staging)
            #expect(staging == "v2")
            #expect(try await Self.version(api) == "v1")
        }
        // Changed files: they become version 3 of both environments.
        try Self.bundle("local")["cloud.js"]!.stringValue!.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        try await Self.run(directory: directory) { (api: API) async throws in
            #expect(try await Self.version(api, headers: Headers.staging) == "local")
            #expect(try await Self.version(api) == "local")
            #expect(try await api.get("/1.1/engine/deploys", headers: Headers.master).results.first?["version"] == 3)
        }
    }

    @Test func variablesAndSecretsBelongToTheirEnvironment() async throws {
        var functions = FunctionRegistry()
        functions.define("swiftVariable") { request in request.variables["GREETING"] ?? "none" }
        var stagingOnly = FunctionRegistry.Options()
        stagingOnly.environments = [.staging]
        functions.define("tryMe", options: stagingOnly) { _ in "staging only" }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "AV.Cloud.define('env', function () { return { greeting: process.env.GREETING || null, token: process.env.TOKEN || null }; });"
            .write(toFile: directory + "/env.js", atomically: true, encoding: .utf8)
        try await TestServer.run(dataDirectory: directory, functions: functions, functionsDirectory: directory) { api in
            let set = try await api.put(
                "/1.1/engine/variables", headers: Headers.master, ["environment": "staging", "set": ["GREETING": "hi"]])
            #expect(set["variables"] == ["GREETING": "hi"], "\(set)")
            let secret = try await api.put(
                "/1.1/engine/variables", headers: Headers.master,
                ["environment": "staging", "set": ["TOKEN": "s3cr3t"], "secret": true])
            #expect(secret["variables"]?["TOKEN"] == "******" && secret["secrets"] == ["TOKEN"], "\(secret)")
            #expect(!secret.text.contains("s3cr3t"))
            let listed = try await api.get("/1.1/engine/variables?environment=staging", headers: Headers.master)
            #expect(!listed.text.contains("s3cr3t") && listed["variables"]?["GREETING"] == "hi", "\(listed)")

            let stagingEnv = try await api.post("/1.1/functions/env", headers: Headers.staging, [:])
            #expect(stagingEnv["result"] == ["greeting": "hi", "token": "s3cr3t"], "\(stagingEnv)")
            let productionEnv = try await api.post("/1.1/functions/env", [:])
            #expect(productionEnv["result"] == ["greeting": nil, "token": nil], "\(productionEnv)")
            #expect(try await api.post("/1.1/functions/swiftVariable", headers: Headers.staging, [:])["result"] == "hi")
            #expect(try await api.post("/1.1/functions/swiftVariable", [:])["result"] == "none")
            #expect(try await api.post("/1.1/functions/tryMe", headers: Headers.staging, [:])["result"] == "staging only")
            expectError(try await api.post("/1.1/functions/tryMe", [:]), code: 1, status: .notFound)

            let unset = try await api.put(
                "/1.1/engine/variables", headers: Headers.master, ["environment": "staging", "unset": ["GREETING"]])
            #expect(unset["variables"] == ["TOKEN": "******"], "\(unset)")
            #expect(try await api.post("/1.1/functions/env", headers: Headers.staging, [:])["result"]?["greeting"] == .null)
            expectError(
                try await api.put("/1.1/engine/variables", headers: Headers.master, ["environment": "staging", "set": ["a.b": "x"]]),
                code: 107)
        }
    }

    @Test func hooksAndMetadataFollowTheEnvironment() async throws {
        try await Self.run { api in
            let hooked: JSONValue = [
                "cloud.js": """
                AV.Cloud.define('version', function () { return 'v2'; });
                AV.Cloud.beforeSave('Todo', function (request) { request.object.set('checked', 'staging'); });
                """
            ]
            #expect(try await api.post("/1.1/engine/deploys", headers: Headers.master, ["environment": "staging", "files": hooked]).status == .created)
            // The master key tries staging's hooks; a client's staging writes on shared data run
            // production's (EdgeStagingAttackTests).
            let stagingTodo = try await api.create("Todo", ["title": "a"], headers: Headers.masterStaging)
            let clientTodo = try await api.create("Todo", ["title": "c"], headers: Headers.staging)
            let productionTodo = try await api.create("Todo", ["title": "b"])
            #expect(try await api.fetch("Todo", stagingTodo)["checked"] == "staging")
            #expect(try await api.fetch("Todo", clientTodo)["checked"] == nil)
            #expect(try await api.fetch("Todo", productionTodo)["checked"] == nil)
            let stagingNames = try await api.get("/1.1/functions/_ops/metadatas", headers: Headers.masterStaging)
            #expect(stagingNames["result"]?.arrayValue?.contains("__before_save_for_Todo") == true, "\(stagingNames)")
            let productionNames = try await api.get("/1.1/functions/_ops/metadatas", headers: Headers.master)
            #expect(productionNames["result"]?.arrayValue?.contains("__before_save_for_Todo") == false, "\(productionNames)")
        }
    }

    @Test func noCallFailsOrGoesBackInTimeWhileTenVersionsAreDeployed() async throws {
        try await Self.run { api in
            let tally = Tally()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        // A steady stream until the last deploy is answered (bounded all the same).
                        for _ in 0..<3000 where !tally.done.withLock({ $0 }) {
                            let live = tally.live.withLock { $0 }
                            let reply = try await api.post("/1.1/functions/version", headers: Headers.staging, [:])
                            tally.calls.withLock { $0 += 1 }
                            guard reply.status == .ok, let tag = reply["result"]?.stringValue, let number = Int(tag.dropFirst()) else {
                                tally.failures.withLock { $0.append(reply.description) }
                                continue
                            }
                            // Answered by a version older than the one live when the call started.
                            if number < live { tally.failures.withLock { $0.append("v\(number) answered after v\(live) went live") } }
                        }
                    }
                }
                group.addTask {
                    defer { tally.done.withLock { $0 = true } }
                    for number in 2...11 {
                        let reply = try await Self.deploy(api, "v\(number)")
                        if reply.status != .created { tally.failures.withLock { $0.append(reply.description) } }
                        tally.live.withLock { $0 = number }
                    }
                }
                try await group.waitForAll()
            }
            #expect(tally.failures.withLock { $0 }.isEmpty, "\(tally.failures.withLock { $0 })")
            #expect(tally.calls.withLock { $0 } >= 30, "the stream ran alongside the deploys")
            #expect(try await Self.version(api, headers: Headers.staging) == "v11")
        }
    }

    @Test func secretsStayOutOfTheLogs() async throws {
        let log = CapturedLog()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "AV.Cloud.define('useToken', function () { console.log('calling the partner'); return process.env.TOKEN.length; });"
            .write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        var logger = Logger(label: "functionhost", factory: { _ in log.handler })
        logger.logLevel = .trace
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory, logger: logger) { api in
            let set = try await api.put(
                "/1.1/engine/variables", headers: Headers.master,
                ["environment": "production", "set": ["TOKEN": "tok-9f8e7d"], "secret": true])
            #expect(set.status == .ok)
            #expect(try await api.post("/1.1/functions/useToken", [:])["result"] == 10)
            _ = try await Self.deploy(api, "v2", to: "production")
        }
        let lines = log.lines
        #expect(lines.contains { $0.contains("calling the partner") }, "the function's console output is logged")
        #expect(!lines.contains { $0.contains("tok-9f8e7d") }, "\(lines)")
    }
}

/// What concurrent callers saw, shared between their tasks.
final class Tally: Sendable {
    let failures = Mutex<[String]>([])
    let live = Mutex(1)
    let calls = Mutex(0)
    let done = Mutex(false)
}

/// Staging with a database of its own.
@Suite struct StagingDatabaseTests {
    @Test func stagingCanHaveItsOwnDatabase() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            AV.Cloud.define('countTodos', function () { return new AV.Query('Todo').count(); });
            AV.Cloud.afterSave('Todo', function (request) { return new AV.Object('Log').save({ title: request.object.get('title') }); });
            """.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        try await TestServer.run(
            dataDirectory: directory, functionsDirectory: directory,
            configure: { $0.stagingDataDirectory = directory + "/staging" }
        ) { api in
            _ = try await api.create("Todo", ["title": "real"])
            _ = try await api.create("Todo", ["title": "trial 1"], headers: Headers.staging)
            _ = try await api.create("Todo", ["title": "trial 2"], headers: Headers.staging)
            #expect(try await api.results("Todo").map { $0["title"] } == ["real"])
            let staged = try await api.find("Todo", headers: Headers.staging)
            #expect(Set(staged.results.compactMap { $0["title"]?.stringValue }) == ["trial 1", "trial 2"], "\(staged)")
            // Cloud code reads and hooks write the database of the environment they serve.
            #expect(try await api.post("/1.1/functions/countTodos", [:])["result"] == 1)
            #expect(try await api.post("/1.1/functions/countTodos", headers: Headers.staging, [:])["result"] == 2)
            #expect(try await api.find("Log", headers: Headers.staging).results.count == 2)
            #expect(try await api.results("Log").count == 1)
            // Deploys are kept with production's data, whichever environment they go to.
            #expect(try await DeployTests.deploy(api, "v2").status == .created)
            #expect(try await api.get("/1.1/engine/deploys", headers: Headers.master).results.count == 2)
        }
    }
}
