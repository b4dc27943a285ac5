import ArgumentParser
import Foundation
import NIOHTTP1

/// `functionhost logs [--env E] [--limit N] [--follow]`: the recent log lines of an environment's
/// functions and hooks, from the host the command reaches.
struct Logs: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        abstract: "Print the recent log lines of an environment's cloud functions and hooks.",
        discussion: "Each host keeps its last 1000 lines per environment; with several hosts, this reads the one --server reaches.")

    @Option(name: .customLong("env"), help: ArgumentHelp("The environment.", valueName: "environment"))
    var environment: DeployEnvironment = .production

    @Option(help: "How many of the newest lines to print first (1-1000).")
    var limit: Int = 100

    @Flag(help: "Keep printing new lines as they come, until interrupted.")
    var follow = false

    /// How often `--follow` asks for new lines.
    static let followInterval: Duration = .seconds(1)

    @OptionGroup var options: ClientOptions

    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be from 1 to 1000.") }
    }

    func run() async throws {
        try await ClientFailure.reporting {
            let client = try options.client()
            var after = 0
            repeat {
                let answer = try await client.send(
                    .GET, "/1.1/engine/logs?environment=\(environment.rawValue)&limit=\(limit)&after=\(after)")
                let lines = answer.object["results"] as? [[String: Any]] ?? []
                if options.json {
                    for line in lines { print(JSONText.oneLine(JSONText.data(line))) }
                } else {
                    for line in lines { print(Self.text(line)) }
                }
                after = lines.compactMap { $0["sequence"] as? Int }.max() ?? after
                if follow { try await Task.sleep(for: Self.followInterval) }
            } while follow
        }
    }

    /// `time level source: message key=value ...`
    static func text(_ line: [String: Any]) -> String {
        let metadata = (line["metadata"] as? [String: String] ?? [:]).sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let head = "\(line["time"] as? String ?? "-") \(line["level"] as? String ?? "-") \(line["source"] as? String ?? "-"):"
        return [head, line["message"] as? String ?? "", metadata].filter { !$0.isEmpty }.joined(separator: " ")
    }
}
