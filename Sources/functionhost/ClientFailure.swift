import ArgumentParser
import Foundation

/// A client subcommand's failure that is reported as one `functionhost: ...` line on standard error.
///
/// Argument parser would prefix any other error with "Error: " and, for validation errors, add the
/// usage text; server refusals and unreachable servers are not usage mistakes, so they are printed
/// by ``reporting(_:)`` and the command exits with status 1.
struct ClientFailure: Error, CustomStringConvertible {
    /// The text after `functionhost: `.
    let message: String

    /// The line as printed.
    var description: String { "functionhost: \(message)" }

    /// Runs `body`, turning a `ClientFailure` into its line on standard error and exit status 1.
    static func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let failure as ClientFailure {
            FileHandle.standardError.write(Data((failure.description + "\n").utf8))
            throw ExitCode.failure
        }
    }
}
