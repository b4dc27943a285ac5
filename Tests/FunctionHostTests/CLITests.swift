import DataAPI
import Foundation
import JSON
import Testing

@testable import FunctionHost

/// The `functionhost` client commands, run as the built executable against a live server.
@Suite struct CLITests {
    /// What one run of the executable printed, and how it exited.
    struct Run: Sendable, CustomStringConvertible {
        var status: Int32
        var output: String
        var errors: String
        var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors)" }
    }

    /// The executable, beside the test bundle (both are built by `swift build --build-tests`).
    static var executable: URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("functionhost")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/debug/functionhost").standardizedFileURL
    }

    /// Runs `functionhost ARGUMENTS` against the server on `port`, with the credentials in its
    /// environment as a deployment script would have them; `input` is its standard input.
    static func functionhost(_ arguments: [String], port: Int, input: String? = nil) async throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["LEANCLOUD_API_SERVER"] = "http://127.0.0.1:\(port)"
        environment["LEANCLOUD_APP_ID"] = "app"
        environment["LEANCLOUD_APP_MASTER_KEY"] = "master"
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        if let input {
            let pipe = Pipe()
            process.standardInput = pipe
            // Small enough for the pipe's buffer, so writing before the process reads can't block.
            pipe.fileHandleForWriting.write(Data(input.utf8))
            try pipe.fileHandleForWriting.close()
        }
        // Waiting without blocking a thread: the server answering the command runs in this process.
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return Run(
            status: status,
            output: String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            errors: String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test func deployInvokePromoteRollbackAndVariablesFromTheCommandLine() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build the executable: \(Self.executable.path)")
        let bundle = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        try FileManager.default.createDirectory(atPath: bundle + "/lib", withIntermediateDirectories: true)
        try "module.exports = 'v2';".write(toFile: bundle + "/lib/tag.js", atomically: true, encoding: .utf8)
        try "AV.Cloud.define('version', function () { return require('./lib/tag'); });"
            .write(toFile: bundle + "/cloud.js", atomically: true, encoding: .utf8)
        try await DeployTests.run { api in
            let port = api.port
            let deployed = try await Self.functionhost(["deploy", bundle, "--env", "staging", "-m", "cli v2"], port: port)
            #expect(deployed.status == 0 && deployed.output.contains("Deployed version 2 to staging"), "\(deployed)")
            let staging = try await Self.functionhost(["invoke", "version", "--env", "staging"], port: port)
            #expect(staging.status == 0 && staging.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\"v2\"", "\(staging)")
            let production = try await Self.functionhost(["invoke", "version"], port: port)
            #expect(production.output.contains("\"v1\""), "\(production)")

            let versions = try await Self.functionhost(["versions"], port: port)
            #expect(versions.status == 0 && versions.output.contains("cli v2") && versions.output.contains("staging"), "\(versions)")
            // Who deployed: the account and machine the command ran on.
            #expect(versions.output.contains("@\(ProcessInfo.processInfo.hostName)"), "\(versions)")
            let json = try await Self.functionhost(["versions", "--json"], port: port)
            let parsed = try JSONValue(parsing: Array(json.output.utf8))
            #expect(parsed["results"]?.arrayValue?.count == 2, "\(json)")

            let promoted = try await Self.functionhost(["promote"], port: port)
            #expect(promoted.status == 0 && promoted.output.contains("version 2"), "\(promoted)")
            #expect(try await DeployTests.version(api) == "v2")
            let back = try await Self.functionhost(["rollback", "--env", "production"], port: port)
            #expect(back.status == 0 && back.output.contains("version 1"), "\(back)")
            #expect(try await DeployTests.version(api) == "v1")

            let set = try await Self.functionhost(["env", "set", "GREETING=hi=there", "--env", "staging"], port: port)
            #expect(set.status == 0, "\(set)")
            _ = try await Self.functionhost(["env", "set", "TOKEN=s3cr3t", "--env", "staging", "--secret"], port: port)
            let listed = try await Self.functionhost(["env", "list", "--env", "staging"], port: port)
            #expect(listed.output.contains("GREETING=hi=there") && listed.output.contains("TOKEN=******"), "\(listed)")
            #expect(!listed.output.contains("s3cr3t"))
            let unset = try await Self.functionhost(["env", "unset", "GREETING", "--env", "staging"], port: port)
            #expect(unset.status == 0, "\(unset)")
            #expect(!(try await Self.functionhost(["env", "list", "--env", "staging"], port: port)).output.contains("GREETING"))

            // Failures: one line on standard error, a non-zero exit.
            let missing = try await Self.functionhost(["invoke", "nope"], port: port)
            #expect(missing.status != 0 && missing.errors.contains("code 1, HTTP 404"), "\(missing)")
            #expect(missing.errors.split(separator: "\n").count == 1)
            let tooFar = try await Self.functionhost(["rollback", "--env", "staging", "--to", "9"], port: port)
            #expect(tooFar.status != 0 && tooFar.errors.contains("no version 9"), "\(tooFar)")
        }
        let unreachable = try await Self.functionhost(["promote"], port: 1)
        #expect(unreachable.status != 0 && unreachable.errors.contains("cannot reach"), "\(unreachable)")
    }
}
