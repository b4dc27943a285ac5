import ArgumentParser
import NIOHTTP1

/// `functionhost env unset KEY... [--env E]`.
struct EnvUnset: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "unset",
        abstract: "Remove variables from an environment.")

    /// The names to remove.
    @Argument(help: ArgumentHelp("The variables to remove.", valueName: "KEY"))
    var keys: [String]

    /// Whose variables.
    @OptionGroup var target: VariablesEnvironment

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Refuses an empty list, and `KEY=VALUE` given by habit from `env set`.
    func validate() throws {
        guard !keys.isEmpty else {
            throw ValidationError("Give at least one KEY to remove.")
        }
        if let key = keys.first(where: { $0.isEmpty || $0.contains("=") }) {
            throw ValidationError("'\(key)' is not a variable name; env unset takes names only.")
        }
    }

    /// Sends the removal and confirms which keys went.
    func run() async throws {
        try await ClientFailure.reporting {
            let body: [String: Any] = ["environment": target.environment.rawValue, "unset": keys]
            let answer = try await options.client().send(.PUT, "/1.1/engine/variables", body: JSONText.data(body))
            try options.report(answer) { _ in ["Unset \(keys.joined(separator: ", ")) on \(target.environment.rawValue)."] }
        }
    }
}
