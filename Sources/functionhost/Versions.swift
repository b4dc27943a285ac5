import ArgumentParser
import NIOHTTP1

/// `functionhost versions [--env E]`: the deployed versions, newest first.
struct Versions: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        abstract: "List the deployed versions, newest first, and where each runs.")

    /// Only the versions this environment has run, when given; the server does the filtering.
    @Option(
        name: .customLong("env"),
        help: ArgumentHelp("Only the versions this environment has run.", valueName: "environment"))
    var environment: DeployEnvironment?

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Fetches the list and prints one line per version.
    func run() async throws {
        try await ClientFailure.reporting {
            let query = environment.map { "?environment=\($0.rawValue)" } ?? ""
            let answer = try await options.client().send(.GET, "/1.1/engine/deploys" + query)
            try options.report(answer) { answer in
                let results = answer.object["results"] as? [[String: Any]] ?? []
                if results.isEmpty { return ["No versions deployed."] }
                // Right-align the numbers so the columns after them line up.
                let width = results.map { String($0["version"] as? Int ?? 0).count }.max() ?? 1
                return results.map { entry in
                    let number = String(entry["version"] as? Int ?? 0)
                    let padded = String(repeating: " ", count: width - number.count) + number
                    let hash = (entry["hash"] as? String ?? "-").prefix(8)
                    let author = entry["author"] as? String ?? ""
                    let live = (entry["live"] as? [String] ?? []).joined(separator: ",")
                    let columns = [
                        padded, entry["createdAt"] as? String ?? "-", String(hash), author.isEmpty ? "-" : author,
                        live.isEmpty ? "-" : live,
                    ]
                    // One line per version: a multi-line message shows its first line, an empty one
                    // nothing (no trailing spaces).
                    let message = (entry["message"] as? String ?? "").split(whereSeparator: \.isNewline).first
                    return "  " + (columns + (message.map { [String($0)] } ?? [])).joined(separator: "  ")
                }
            }
        }
    }
}
