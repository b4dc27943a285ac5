import ArgumentParser
import NIOHTTP1

/// `functionhost env list [--env E]`.
struct EnvList: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print an environment's variables; secrets show masked.")

    /// Whose variables.
    @OptionGroup var target: VariablesEnvironment

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Fetches the variables and prints `KEY=value` lines, sorted by key.
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await options.client().send(
                .GET, "/1.1/engine/variables?environment=\(target.environment.rawValue)")
            try options.report(answer) { answer in
                let variables = answer.object["variables"] as? [String: String] ?? [:]
                let secrets = Set(answer.object["secrets"] as? [String] ?? [])
                if variables.isEmpty { return ["No variables on \(target.environment.rawValue)."] }
                // The server masks secret values already; the mark says why the value looks so.
                return variables.keys.sorted().map { key in
                    "\(key)=\(variables[key] ?? "")" + (secrets.contains(key) ? " (secret)" : "")
                }
            }
        }
    }
}
