import DataAPI
import Foundation
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The `functionhost` client commands, run as the built executable against a live server.
@Suite struct CLITests {
    @Test func deployInvokePromoteRollbackAndVariablesFromTheCommandLine() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: CLI.executable.path), "build the executable: \(CLI.executable.path)")
        let bundle = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        try FileManager.default.createDirectory(atPath: bundle + "/lib", withIntermediateDirectories: true)
        try "module.exports = 'v2';".write(toFile: bundle + "/lib/tag.js", atomically: true, encoding: .utf8)
        try "AV.Cloud.define('version', function () { return require('./lib/tag'); });"
            .write(toFile: bundle + "/cloud.js", atomically: true, encoding: .utf8)
        try await DeployTests.run(transport: .socket) { api in
            let port = api.port
            let deployed = try await CLI.functionhost(["deploy", bundle, "--env", "staging", "-m", "cli v2"], port: port)
            #expect(deployed.status == 0 && deployed.output.contains("Deployed version 2 to staging"), "\(deployed)")
            let staging = try await CLI.functionhost(["invoke", "version", "--env", "staging"], port: port)
            #expect(staging.status == 0 && staging.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\"v2\"", "\(staging)")
            let production = try await CLI.functionhost(["invoke", "version"], port: port)
            #expect(production.output.contains("\"v1\""), "\(production)")

            let versions = try await CLI.functionhost(["versions"], port: port)
            #expect(versions.status == 0 && versions.output.contains("cli v2") && versions.output.contains("staging"), "\(versions)")
            // Who deployed: the account and machine the command ran on.
            #expect(versions.output.contains("@\(ProcessInfo.processInfo.hostName)"), "\(versions)")
            let json = try await CLI.functionhost(["versions", "--json"], port: port)
            let parsed = try JSONValue(parsing: Array(json.output.utf8))
            #expect(parsed["results"]?.arrayValue?.count == 2, "\(json)")

            let promoted = try await CLI.functionhost(["promote"], port: port)
            #expect(promoted.status == 0 && promoted.output.contains("version 2"), "\(promoted)")
            #expect(try await DeployTests.version(api) == "v2")
            let back = try await CLI.functionhost(["rollback", "--env", "production"], port: port)
            #expect(back.status == 0 && back.output.contains("version 1"), "\(back)")
            #expect(try await DeployTests.version(api) == "v1")

            let set = try await CLI.functionhost(["env", "set", "GREETING=hi=there", "--env", "staging"], port: port)
            #expect(set.status == 0, "\(set)")
            _ = try await CLI.functionhost(["env", "set", "TOKEN=s3cr3t", "--env", "staging", "--secret"], port: port)
            let listed = try await CLI.functionhost(["env", "list", "--env", "staging"], port: port)
            #expect(listed.output.contains("GREETING=hi=there") && listed.output.contains("TOKEN=******"), "\(listed)")
            #expect(!listed.output.contains("s3cr3t"))
            let unset = try await CLI.functionhost(["env", "unset", "GREETING", "--env", "staging"], port: port)
            #expect(unset.status == 0, "\(unset)")
            #expect(!(try await CLI.functionhost(["env", "list", "--env", "staging"], port: port)).output.contains("GREETING"))

            // Failures: one line on standard error, a non-zero exit.
            let missing = try await CLI.functionhost(["invoke", "nope"], port: port)
            #expect(missing.status != 0 && missing.errors.contains("code 1, HTTP 404"), "\(missing)")
            #expect(missing.errors.split(separator: "\n").count == 1)
            let tooFar = try await CLI.functionhost(["rollback", "--env", "staging", "--to", "9"], port: port)
            #expect(tooFar.status != 0 && tooFar.errors.contains("no version 9"), "\(tooFar)")
        }
        let unreachable = try await CLI.functionhost(["promote"], port: 1)
        #expect(unreachable.status != 0 && unreachable.errors.contains("cannot reach"), "\(unreachable)")
    }
}
