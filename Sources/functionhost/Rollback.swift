import ArgumentParser
import NIOHTTP1

/// `functionhost rollback --env E [--to VERSION]`.
struct Rollback: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        abstract: "Make an environment run an earlier version.",
        discussion: "Without --to, the server chooses the earlier version to return to.")

    /// Which environment goes back.
    @Option(name: .customLong("env"), help: ArgumentHelp("The environment to roll back.", valueName: "environment"))
    var environment: DeployEnvironment

    /// The version to run; `nil` leaves the choice to the server.
    @Option(
        name: .customLong("to"),
        help: ArgumentHelp("The version to run (see `functionhost versions`).", valueName: "version"))
    var version: Int?

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Refuses a version number no deploy can have.
    func validate() throws {
        if let version, version < 1 {
            throw ValidationError("--to takes a version number from 1 up, not \(version).")
        }
    }

    /// Asks the server to roll back and reports the version now running.
    func run() async throws {
        try await ClientFailure.reporting {
            var body: [String: Any] = ["environment": environment.rawValue]
            if let version { body["version"] = version }
            let answer = try await options.client().send(.POST, "/1.1/engine/rollback", body: JSONText.data(body))
            try options.report(answer) { answer in
                ["\(answer.string("environment", default: environment.rawValue)) now runs version \(try answer.int("version"))."]
            }
        }
    }
}
