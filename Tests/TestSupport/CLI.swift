package import Foundation

/// The built `functionhost` executable, run as a deployment script or an operator runs it.
package enum CLI {
    /// What one run of the executable printed, and how it exited.
    package struct Run: Sendable, CustomStringConvertible {
        /// The exit status.
        package var status: Int32
        /// What it wrote to standard output.
        package var output: String
        /// What it wrote to standard error.
        package var errors: String
        /// All of it, for messages.
        package var description: String { "exit \(status)\nstdout: \(output)\nstderr: \(errors)" }
    }

    /// The executable, beside the test bundle (both are built by `swift build --build-tests`).
    package static var executable: URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            .appendingPathComponent("functionhost")
        if FileManager.default.isExecutableFile(atPath: besideTests.path) { return besideTests }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../.build/debug/functionhost").standardizedFileURL
    }

    /// Runs `functionhost ARGUMENTS` against the server on `port`, with the credentials in its
    /// environment as a deployment script would have them; `input` is its standard input.
    package static func functionhost(_ arguments: [String], port: Int, input: String? = nil) async throws -> Run {
        var environment = ProcessInfo.processInfo.environment
        environment["LEANCLOUD_API_SERVER"] = "http://127.0.0.1:\(port)"
        environment["LEANCLOUD_APP_ID"] = "app"
        environment["LEANCLOUD_APP_MASTER_KEY"] = "master"
        let outcome = try await ChildProcess.run(executable.path, arguments, environment: environment, input: input.map { Data($0.utf8) })
        return Run(
            status: outcome.status, output: String(decoding: outcome.output, as: UTF8.self),
            errors: String(decoding: outcome.errors, as: UTF8.self))
    }
}
