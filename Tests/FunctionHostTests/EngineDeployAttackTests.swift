import Foundation
import FunctionHost
import HTTPTypes
import JSON
import Testing
import TestSupport

/// What a deploy of an engine app refuses: anyone but the master key, paths that would write
/// outside the app's folder, bundles past their bounds, malformed parts; each refused with
/// nothing stored and nothing written.
@Suite struct EngineDeployAttackTests {
    static func file(_ text: String) -> JSONValue {
        ["data": .string(Data(text.utf8).base64EncodedString())]
    }

    static func deploy(_ api: API, _ engine: JSONValue, headers: HTTPFields = Headers.master) async throws -> Reply {
        try await api.post("/1.1/engine/deploys", headers: headers, ["environment": "production", "engine": engine])
    }

    @Test func badBundlesAreRefusedWithNothingStoredOrWritten() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory) { api in
            let good = Self.file("print('x')")
            // Only the master key deploys.
            expectError(try await Self.deploy(api, ["files": ["wsgi.py": good]], headers: Headers.client), code: 401, status: .unauthorized)

            // Paths that leave the folder, or can't be written as given.
            for path in ["../escape.py", "/etc/passwd", "a/../../b.py", "a//b.py", "./a.py", "a/./b.py", "line\nbreak.py", "nul\u{0}.py",
                "back\\slash.py", String(repeating: "a/", count: 40) + "deep.py", String(repeating: "x", count: 600)]
            {
                let reply = try await Self.deploy(api, ["files": ["wsgi.py": good, .init(stringLiteral: path): good]])
                expectError(reply, code: 107, status: .badRequest)
            }
            // A file that is also a folder.
            expectError(try await Self.deploy(api, ["files": ["app": good, "app/wsgi.py": good]]), code: 107, status: .badRequest)
            // Content that isn't base64, or isn't there; no files at all; files of the wrong shape.
            expectError(try await Self.deploy(api, ["files": ["wsgi.py": ["data": "%%%not base64"]]]), code: 107, status: .badRequest)
            expectError(try await Self.deploy(api, ["files": ["wsgi.py": 12]]), code: 107, status: .badRequest)
            expectError(try await Self.deploy(api, ["files": [:]]), code: 107, status: .badRequest)
            expectError(try await Self.deploy(api, ["files": ["wsgi.py"]]), code: 107, status: .badRequest)
            expectError(try await Self.deploy(api, "wsgi.py"), code: 107, status: .badRequest)
            expectError(try await Self.deploy(api, ["files": ["wsgi.py": good], "command": 3]), code: 107, status: .badRequest)
            // Cloud code and an engine app in one deploy.
            let both = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                ["environment": "production", "files": ["cloud.js": "1"], "engine": ["files": ["wsgi.py": good]]])
            expectError(both, code: 107, status: .badRequest)

            // Too many files, too many bytes.
            var many: [String: JSONValue] = [:]
            for index in 0...5_000 { many["f\(index).txt"] = ["data": ""] }
            expectError(try await Self.deploy(api, ["files": .object(many)]), code: 107, status: .badRequest)
            let big = JSONValue.string(Data(count: 7 * 1024 * 1024).base64EncodedString())
            expectError(try await Self.deploy(api, ["files": ["a.bin": ["data": big], "b.bin": ["data": big]]]), code: 107, status: .badRequest)

            // No start command to be found, a timeout LeanCloud didn't allow, a manifest that isn't one.
            expectError(try await Self.deploy(api, ["files": ["readme.txt": good]]), code: 107, status: .badRequest)
            expectError(
                try await Self.deploy(api, ["files": ["wsgi.py": good, "leanengine.yaml": Self.file("startupTimeout: 5\n")]]), code: 107,
                status: .badRequest)
            expectError(
                try await Self.deploy(api, ["files": ["wsgi.py": good, "leanengine.yaml": Self.file("just words\n")]]), code: 107,
                status: .badRequest)

            // Nothing was stored, and nothing written out.
            let versions = try await api.get("/1.1/engine/deploys", headers: Headers.master)
            #expect(versions["results"]?.arrayValue?.isEmpty == true, "\(versions)")
            #expect(!FileManager.default.fileExists(atPath: "\(directory)/engines/releases"))
            #expect(!FileManager.default.fileExists(atPath: "\(directory)/../escape.py"))
        }
    }

    @Test func anEnvironmentWithTheOperatorsEngineTakesNoEngineApp() async throws {
        try await EngineAppFixture.preparePython()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, transport: .socket,
            configure: { $0.engines[.production] = EngineAppFixture.pythonApp("production") }
        ) { api in
            let reply = try await Self.deploy(api, ["files": try EngineBundles.python("staging"), "command": .string(EngineBundles.pythonCommand)])
            expectError(reply, code: 1, status: .badRequest)
            #expect(reply["error"]?.stringValue?.contains("--engine-command") == true, "\(reply)")
        }
    }

    /// An app's install step runs in its folder with the environment's variables and the few a
    /// process needs: none of the host's own (its database URL, its test settings).
    @Test func anInstallStepSeesOnlyTheAppsVariables() async throws {
        try await EngineAppFixture.preparePython()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, transport: .socket) { api in
            _ = try await api.put("/1.1/engine/variables", headers: Headers.master, ["environment": "production", "set": ["APP_SETTING": "1"]])
            let yaml = "install:\n  - env > seen.txt\nrun: \(EngineBundles.pythonCommand)\n"
            let reply = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                EngineBundles.deploy(try EngineBundles.python("production", extra: ["leanengine.yaml": yaml]), to: "production", command: nil))
            #expect(reply.status == .created, "\(reply)")
            let releases = "\(directory)/engines/releases"
            let folders = try FileManager.default.contentsOfDirectory(atPath: releases).filter { !$0.hasSuffix(".lock") }
            #expect(folders.count == 1, "\(folders)")
            let seen = try String(contentsOfFile: "\(releases)/\(folders[0])/seen.txt", encoding: .utf8)
            let names = Set(seen.split(separator: "\n").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
            // What the shell adds itself (PWD, SHLVL, _) aside.
            let allowed: Set<String> = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "APP_SETTING", "PWD", "OLDPWD", "SHLVL", "_"]
            #expect(names.isSubset(of: allowed), "\(names.subtracting(allowed))")
            #expect(names.contains("APP_SETTING"))
        }
    }
}
