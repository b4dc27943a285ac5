import ArgumentParser
import NIOHTTP1

/// `functionhost env list [--env E]`.
struct EnvList: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print an environment's variables; secrets show masked.")

    /// Whose variables.
    @Option(
        name: .customLong("env"),
        help: ArgumentHelp("The environment whose variables to show.", valueName: "environment"))
    var environment: DeployEnvironment = .production

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Fetches the variables and prints `KEY=value` lines, sorted by key.
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await options.client().send(
                .GET, "/1.1/engine/variables?environment=\(environment.rawValue)")
            if options.json {
                print(answer.jsonLine)
                return
            }
            let variables = answer.object["variables"] as? [String: String] ?? [:]
            let secrets = Set(answer.object["secrets"] as? [String] ?? [])
            if variables.isEmpty {
                print("No variables on \(environment.rawValue).")
                return
            }
            for key in variables.keys.sorted() {
                // The server masks secret values already; the mark says why the value looks so.
                print("\(key)=\(variables[key] ?? "")" + (secrets.contains(key) ? " (secret)" : ""))
            }
        }
    }
}
