import ArgumentParser
import NIOHTTP1

/// `functionhost env set KEY=VALUE... [--env E] [--secret]`.
struct EnvSet: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Set variables in an environment.")

    /// The assignments, each `KEY=VALUE`; the value may itself contain `=`.
    @Argument(help: ArgumentHelp("The variables to set.", valueName: "KEY=VALUE"))
    var assignments: [String]

    /// Whose variables.
    @OptionGroup var target: VariablesEnvironment

    /// Whether the values are secrets, which the server never shows again.
    @Flag(help: "Store the values as secrets, masked when listed.")
    var secret = false

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Refuses no assignments, a malformed one, or the same key twice.
    func validate() throws {
        _ = try variables()
    }

    /// The assignments as keys and values, in the order given.
    private func variables() throws -> [(key: String, value: String)] {
        guard !assignments.isEmpty else {
            throw ValidationError("Give at least one KEY=VALUE.")
        }
        var seen: Set<String> = []
        return try assignments.map { assignment in
            let parts = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("'\(assignment)' is not KEY=VALUE.")
            }
            let key = String(parts[0])
            // Which of two values wins would otherwise depend on how the server reads the object.
            guard seen.insert(key).inserted else {
                throw ValidationError("\(key) is given twice.")
            }
            return (key, String(parts[1]))
        }
    }

    /// Sends the new values and confirms which keys were set.
    func run() async throws {
        try await ClientFailure.reporting {
            let variables = try self.variables()
            let set = Dictionary(uniqueKeysWithValues: variables.map { ($0.key, $0.value) })
            let body: [String: Any] = ["environment": target.environment.rawValue, "set": set, "secret": secret]
            let answer = try await options.client().send(.PUT, "/1.1/engine/variables", body: JSONText.data(body))
            try options.report(answer) { _ in
                ["Set \(variables.map(\.key).joined(separator: ", ")) on \(target.environment.rawValue)."]
            }
        }
    }
}
