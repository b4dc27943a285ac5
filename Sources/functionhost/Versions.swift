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
            if options.json {
                print(answer.jsonLine)
                return
            }
            let results = answer.object["results"] as? [[String: Any]] ?? []
            if results.isEmpty {
                print("No versions deployed.")
                return
            }
            // Right-align the numbers so the columns after them line up.
            let width = results.map { String($0["version"] as? Int ?? 0).count }.max() ?? 1
            for entry in results {
                let number = String(entry["version"] as? Int ?? 0)
                let padded = String(repeating: " ", count: width - number.count) + number
                let createdAt = entry["createdAt"] as? String ?? "-"
                let hash = (entry["hash"] as? String ?? "-").prefix(8)
                let live = (entry["live"] as? [String] ?? []).joined(separator: ",")
                // One line per version: a multi-line message shows its first line.
                let message = (entry["message"] as? String ?? "").split(whereSeparator: \.isNewline).first ?? ""
                let author = entry["author"] as? String ?? ""
                let columns = [padded, createdAt, String(hash), author.isEmpty ? "-" : author, live.isEmpty ? "-" : live]
                // An empty message is left out rather than printed as trailing spaces.
                print("  " + (columns + (message.isEmpty ? [] : [String(message)])).joined(separator: "  "))
            }
        }
    }
}
