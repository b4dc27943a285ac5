import Foundation
import FunctionHost
import HTTPTypes
import HummingbirdTesting
import NIOCore
import JSON
import Testing
import TestSupport

/// Engine apps deployed as versions (`deploy --engine`): each version runs in a process of its
/// own, started and serving before the environment switches to it, the one before drained and
/// stopped; promoted, rolled back, and run by every host on the database.
@Suite struct EngineDeployTests {
    static let staging = Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Prod", "0")])

    /// A host with no engine of the operator's, listening on a socket (its engines call back).
    static func withHost<Value: Sendable>(
        dataDirectory: String? = nil, _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        try await EngineAppFixture.preparePython()
        let directory = try dataDirectory ?? TestServer.makeDataDirectory()
        defer { if dataDirectory == nil { try? FileManager.default.removeItem(atPath: directory) } }
        return try await TestServer.run(
            dataDirectory: directory, transport: .socket,
            configure: { configuration in
                configuration.deployCheckInterval = .milliseconds(250)
            }, body)
    }

    static func deploy(_ api: API, _ app: String, to environment: String, extra: [String: String] = [:]) async throws -> Reply {
        try await api.post(
            "/1.1/engine/deploys", headers: Headers.master,
            EngineBundles.deploy(try EngineBundles.python(app, extra: extra), to: environment, message: "deploy \(app)"))
    }

    static func hello(_ api: API, headers: HTTPFields = Headers.client) async throws -> JSONValue? {
        try await api.post("/1.1/functions/hello", headers: headers, [:])["result"]
    }

    @Test func anEngineAppIsDeployedPromotedAndRolledBackAsVersions() async throws {
        try await Self.withHost { api in
            // Nothing runs yet: the function is unknown.
            expectError(try await api.post("/1.1/functions/hello", [:]), code: 1, status: .notFound)

            let first = try await Self.deploy(api, "production", to: "staging")
            #expect(first.status == .created && first["version"] == 1, "\(first)")
            #expect(first["engine"]?["run"] == .string(EngineBundles.pythonCommand), "\(first)")
            // The deploy answers once the new process serves: staging calls it at once.
            #expect(try await Self.hello(api, headers: Self.staging) == ["hello": .null, "env": "stage", "keys": []])
            expectError(try await api.post("/1.1/functions/hello", [:]), code: 1, status: .notFound)

            // Promote: production starts its own process of the same version, with its own variables.
            let promoted = try await api.post("/1.1/engine/promote", headers: Headers.master, [:])
            #expect(promoted["version"] == 1, "\(promoted)")
            #expect(try await Self.hello(api) == ["hello": .null, "env": "production", "keys": []])

            // Other code to production, then back.
            #expect(try await Self.deploy(api, "staging", to: "production").status == .created)
            #expect(try await Self.hello(api) == ["staging": true, "env": "production"])
            let rolledBack = try await api.post("/1.1/engine/rollback", headers: Headers.master, ["environment": "production"])
            #expect(rolledBack["version"] == 1, "\(rolledBack)")
            #expect(try await Self.hello(api) == ["hello": .null, "env": "production", "keys": []])

            let versions = try await api.get("/1.1/engine/deploys", headers: Headers.master)
            #expect(versions["results"]?.arrayValue?.count == 2, "\(versions)")
            #expect(versions["results"]?.arrayValue?.first?["engine"]?["fileCount"] == 2, "\(versions)")

            // Hooks of the deployed app run on writes as an operator's engine's do.
            let created = try await api.post("/1.1/classes/Todo", ["title": "  trim me  "])
            let stored = try await api.get("/1.1/classes/Todo/\(try #require(created.objectId))", headers: Headers.master)
            #expect(stored["title"] == "trim me" && stored["checkedBy"] == "python", "\(stored)")
        }
    }

    @Test func theOldProcessFinishesItsCallsAndIsThenStopped() async throws {
        try await Self.withHost { api in
            #expect(try await Self.deploy(api, "production", to: "production").status == .created)
            let old = try #require(try await api.post("/1.1/functions/pid", [:])["result"]?.intValue)
            let gate = try TestServer.makeDataDirectory() + "/gate"
            defer { try? FileManager.default.removeItem(atPath: (gate as NSString).deletingLastPathComponent) }

            // A call held open in the old process while the new version is deployed.
            // On a connection of its own: the test client's one connection would hold the deploy behind it.
            async let held = Self.onOwnConnection(api, "/1.1/functions/gate", ["path": .string(gate)])
            try await Self.waitUntil("the held call entered") { FileManager.default.fileExists(atPath: gate + ".entered") }
            #expect(try await Self.deploy(api, "production", to: "production", extra: ["marker.txt": "v2"]).status == .created)
            let new = try #require(try await api.post("/1.1/functions/pid", [:])["result"]?.intValue)
            #expect(new != old)
            // The old process is still there for the call it serves.
            #expect(kill(pid_t(old), 0) == 0)

            FileManager.default.createFile(atPath: gate, contents: Data())
            let answer = try await held
            #expect(answer?["result"] == .string("opened by \(old)"), "\(String(describing: answer))")
            // Once drained, it is stopped.
            try await Self.waitUntil("the old process stopped") { kill(pid_t(old), 0) != 0 }
        }
    }

    @Test func anAppThatDoesNotStartOrInstallIsRefusedAndNothingChanges() async throws {
        try await Self.withHost { api in
            #expect(try await Self.deploy(api, "production", to: "production").status == .created)
            let exits = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                EngineBundles.deploy(try EngineBundles.python("staging"), to: "production", command: "echo about to fail; exit 3"))
            expectError(exits, code: 1, status: .badRequest)
            let message = exits["error"]?.stringValue ?? ""
            #expect(message.contains("did not start") && message.contains("status 3") && message.contains("about to fail"), "\(message)")

            let install = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                EngineBundles.deploy(
                    try EngineBundles.python("staging", extra: ["leanengine.yaml": "install:\n  - echo no network; exit 4\n"]),
                    to: "production"))
            expectError(install, code: 1, status: .badRequest)
            #expect(install["error"]?.stringValue?.contains("install step") == true, "\(install)")

            // Production still runs the first version; no other was stored.
            #expect(try await Self.hello(api)?["env"] == "production")
            #expect(try await Self.hello(api)?["staging"] == nil)
            let versions = try await api.get("/1.1/engine/deploys", headers: Headers.master)
            #expect(versions["results"]?.arrayValue?.count == 1, "\(versions)")
        }
    }

    @Test func leanengineYamlRunsTheInstallStepAndTheVariablesReachTheApp() async throws {
        try await Self.withHost { api in
            let set = try await api.put(
                "/1.1/engine/variables", headers: Headers.master, ["environment": "production", "set": ["GREETING": "hi"]])
            #expect(set.status == .ok, "\(set)")
            let yaml = """
                # as LeanCloud read it
                install:
                  - echo "installed here" > installed.txt
                run: "\(EngineBundles.pythonCommand)"
                startupTimeout: 60
                """
            let deployed = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                EngineBundles.deploy(try EngineBundles.python("production", extra: ["leanengine.yaml": yaml]), to: "production", command: nil))
            #expect(deployed.status == .created, "\(deployed)")
            let installed = try await api.post("/1.1/functions/installed", [:])
            #expect(installed["result"] == ["installed": "installed here", "greeting": "hi"], "\(installed)")

            // A variable changed: the app runs again with it, in a new process, before the answer.
            let before = try await api.post("/1.1/functions/pid", [:])["result"]
            _ = try await api.put("/1.1/engine/variables", headers: Headers.master, ["environment": "production", "set": ["GREETING": "hello"]])
            #expect(try await api.post("/1.1/functions/installed", [:])["result"]?["greeting"] == "hello")
            #expect(try await api.post("/1.1/functions/pid", [:])["result"] != before)
        }
    }

    /// A host that never wrote the app out (a fresh machine on the same database) writes it out
    /// from the database and runs it at start; a deploy through one host is run by the others.
    @Test func otherHostsRunTheDeployedAppFromTheDatabase() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.withHost(dataDirectory: directory) { a in
            // Past one stored chunk (96 KB) and one record (128 KB): stored in several.
            let asset = (0..<40_000).map { String($0 % 10) }.joined() + String(repeating: "é", count: 120_000)
            let deployed = try await Self.deploy(a, "staging", to: "production", extra: ["static/asset.txt": asset])
            #expect(deployed.status == .created, "\(deployed)")
        }
        // The app's folder is gone, as on a machine that never ran it: only the database has it.
        try FileManager.default.removeItem(atPath: "\(directory)/engines/releases")
        try await Self.withHost(dataDirectory: directory) { a in
            let reply = try await EngineAppFixture.waitUntilServing(a, function: "hello")
            #expect(reply["result"] == ["staging": true, "env": "production"], "\(reply)")
            try await Self.withHost(dataDirectory: directory) { b in
                _ = try await EngineAppFixture.waitUntilServing(b, function: "hello")
                // A deploy through A reaches B, which starts its own process of it.
                #expect(try await Self.deploy(a, "production", to: "production").status == .created)
                try await Self.waitUntil("B runs the new version") {
                    let result: JSONValue? = try? await Self.hello(b)
                    return result?["env"] == "production" && result?["staging"] == nil
                }
                let pids = (try await a.post("/1.1/functions/pid", [:])["result"], try await b.post("/1.1/functions/pid", [:])["result"])
                #expect(pids.0 != pids.1, "\(pids)")
            }
        }
    }

    /// A version another host switched to that doesn't start here: this host holds its writes
    /// (its hooks would differ from the others') rather than run the old version's.
    @Test func aHostThatCantRunAnotherHostsDeployHoldsItsWrites() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.withHost(dataDirectory: directory) { a in
            try await Self.withHost(dataDirectory: directory) { b in
                let second = b.port
                // Before any engine app: B writes freely.
                #expect(try await b.post("/1.1/classes/Todo", ["title": "before"]).status == .created)
                let command = "if [ \"$LEANCLOUD_API_SERVER\" = \"http://127.0.0.1:\(second)\" ]; then echo not here; exit 3; fi; exec \(EngineBundles.pythonCommand)"
                let deployed = try await a.post(
                    "/1.1/engine/deploys", headers: Headers.master,
                    EngineBundles.deploy(try EngineBundles.python("production"), to: "production", command: command))
                #expect(deployed.status == .created, "\(deployed)")
                // A runs it: its beforeSave checks A's writes.
                let checked = try await a.post("/1.1/classes/Todo", ["title": "  on a  "])
                let stored = try await a.get("/1.1/classes/Todo/\(try #require(checked.objectId))", headers: Headers.master)
                #expect(stored["checkedBy"] == "python", "\(stored)")
                // B can't: once it has tried, its writes are refused, never made unchecked.
                try await Self.waitUntil("B holds its writes") {
                    (try? await b.post("/1.1/classes/Probe", ["n": 1]))?.status == .serviceUnavailable
                }
                let refused = try await b.post("/1.1/classes/Todo", ["title": "on b"])
                #expect(refused.status == .serviceUnavailable && refused["code"] == 142, "\(refused)")
                #expect(try await a.count("Todo") == 2)
            }
        }
    }

    /// Two deploys at once: the environment runs the one stored last, as the database says.
    @Test func racingDeploysLeaveTheEnvironmentRunningWhatTheDatabaseSays() async throws {
        try await Self.withHost { api in
            let production = EngineBundles.deploy(try EngineBundles.python("production"), to: "production", message: "production")
            let staging = EngineBundles.deploy(try EngineBundles.python("staging"), to: "production", message: "staging")
            async let first = Self.onOwnConnection(api, "/1.1/engine/deploys", headers: Headers.master, production)
            async let second = Self.onOwnConnection(api, "/1.1/engine/deploys", headers: Headers.master, staging)
            let answers = try await [first, second]
            let numbers = answers.compactMap { $0?["version"]?.intValue }
            #expect(numbers.sorted() == [1, 2], "\(answers)")
            let environments = try await api.get("/1.1/engine/environments", headers: Headers.master)
            #expect(environments["production"]?["version"] == 2, "\(environments)")
            let newest = try #require(answers.first { $0?["version"] == 2 } ?? nil)
            let hello = try await Self.hello(api)
            if newest["message"] == "staging" {
                #expect(hello == ["staging": true, "env": "production"], "\(String(describing: hello))")
            } else {
                #expect(hello?["env"] == "production" && hello?["staging"] == nil, "\(String(describing: hello))")
            }
        }
    }

    /// `functionhost deploy DIR --engine`: the folder as it is, less what an install makes and
    /// version control; links named and left out.
    @Test func theCLIDeploysAnAppFolder() async throws {
        let folder = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let app = "\(SMTPTestServer.root)/Tests/EngineApps/python/staging"
        for file in ["wsgi.py", "cloud.py"] { try FileManager.default.copyItem(atPath: "\(app)/\(file)", toPath: "\(folder)/\(file)") }
        for skipped in ["node_modules", ".git", "__pycache__", ".venv"] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(skipped)", withIntermediateDirectories: true)
            try "x".write(toFile: "\(folder)/\(skipped)/big.bin", atomically: true, encoding: .utf8)
        }
        try FileManager.default.createSymbolicLink(atPath: "\(folder)/outside", withDestinationPath: "/etc/passwd")
        try await Self.withHost { api in
            let deployed = try await CLI.functionhost(
                ["deploy", folder, "--engine", "--engine-command", EngineBundles.pythonCommand, "--env", "production", "-m", "from the cli"],
                port: api.port)
            #expect(deployed.status == 0 && deployed.output.contains("Deployed version 1 to production"), "\(deployed)")
            #expect(deployed.errors.contains("outside is a link"), "\(deployed)")
            #expect(try await Self.hello(api) == ["staging": true, "env": "production"])
            let versions = try await api.get("/1.1/engine/deploys", headers: Headers.master)
            // wsgi.py and cloud.py only.
            #expect(versions["results"]?.arrayValue?.first?["engine"]?["fileCount"] == 2, "\(versions)")
            let refused = try await CLI.functionhost(["deploy", folder, "--engine-command", "x"], port: api.port)
            #expect(refused.status != 0 && refused.errors.contains("--engine-command needs --engine"), "\(refused)")
        }
    }

    /// A client's call on a connection of its own; its JSON answer.
    static func onOwnConnection(_ api: API, _ path: String, headers: HTTPFields = Headers.client, _ body: JSONValue) async throws
        -> JSONValue?
    {
        try await TestClient.withClient(host: "127.0.0.1", port: api.port) { client in
            var headers = headers
            headers[.contentType] = "application/json"
            let response = try await client.execute(.init(path, method: .post, headers: headers, body: ByteBuffer(string: body.jsonString)))
            return try response.body.map { try JSONValue(parsing: $0.readableBytesView) }
        }
    }

    /// Waits for `condition` (at most 60 s, a bound for a loaded machine, not a figure).
    static func waitUntil(
        _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () async -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !(await condition()) {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(what): not within 60 s", sourceLocation: sourceLocation)
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
