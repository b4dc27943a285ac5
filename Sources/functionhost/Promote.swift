import ArgumentParser
import NIOHTTP1

/// `functionhost promote`: run staging's version in production too.
struct Promote: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        abstract: "Make production run the version staging runs.")

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Asks the server to promote and reports production's new version.
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await options.client().send(
                .POST, "/1.1/engine/promote", body: JSONText.data([String: Any]()))
            try options.report(answer) { answer in ["Production now runs version \(try answer.int("version"))."] }
        }
    }
}
