import ArgumentParser
import Foundation
import NIOHTTP1

/// `functionhost invoke NAME [--params JSON] [--env E]`: call a cloud function as the master.
struct Invoke: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        abstract: "Call a cloud function and print its result.")

    /// The function's name, as given to `AV.Cloud.define`.
    @Argument(help: "The cloud function's name.")
    var name: String

    /// The parameters, sent as the request body unchanged.
    @Option(help: ArgumentHelp(#"The parameters, a JSON object such as '{"n": 1}'."#, valueName: "json"))
    var params: String = "{}"

    /// Which environment runs the call; `nil` sends no `X-LC-Prod`, so the server's default applies.
    @Option(
        name: .customLong("env"),
        help: ArgumentHelp(
            "The environment that runs the call (default: the server's, production).", valueName: "environment"))
    var environment: DeployEnvironment?

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Refuses an empty name or parameters that are not a JSON object before any request.
    func validate() throws {
        guard !name.isEmpty else {
            throw ValidationError("The function name is empty.")
        }
        guard JSONText.object(Data(params.utf8)) != nil else {
            throw ValidationError(#"--params needs a JSON object such as '{"n": 1}', not '\#(params)'."#)
        }
    }

    /// Calls the function and prints its result as JSON text.
    func run() async throws {
        try await ClientFailure.reporting {
            let segment = PathSegment.escaped(name)
            let headers = environment == .staging ? [("X-LC-Prod", "0")] : []
            let answer = try await options.client().send(
                .POST, "/1.1/functions/\(segment)", body: Data(params.utf8), headers: headers)
            try options.report(answer) { answer in [JSONText.string(answer.object["result"] ?? NSNull())] }
        }
    }
}
