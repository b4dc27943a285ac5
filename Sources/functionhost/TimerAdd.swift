import ArgumentParser
import Foundation
import NIOHTTP1

/// `functionhost timers add NAME --function F (--cron EXPR | --every SECONDS) [--params JSON]
/// [--env E] [--user ID]`: creates a timer, or replaces the one of that name.
struct TimerAdd: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a timer (or replace the one of that name) that calls a cloud function on a schedule.",
        discussion: """
            A timer set here wins over a timer of the same name in a deploy's timers.json.
            The cron expression has Quartz's six fields, seconds first: '0 30 3 * * ?' is 03:30:00 every day.
            """)

    /// The timer's name: letters, digits, `_` and `-`.
    @Argument(help: "The timer's name.")
    var name: String

    /// The function each firing calls.
    @Option(name: .customLong("function"), help: ArgumentHelp("The cloud function to call.", valueName: "name"))
    var function: String

    /// A Quartz cron expression, seconds first.
    @Option(help: ArgumentHelp("When to fire: a 6-field Quartz cron expression, seconds first.", valueName: "expression"))
    var cron: String?

    /// An interval in seconds.
    @Option(help: ArgumentHelp("When to fire: every this many seconds.", valueName: "seconds"))
    var every: Int?

    /// The parameters each firing passes.
    @Option(help: ArgumentHelp(#"The parameters, a JSON object such as '{"n": 1}'."#, valueName: "json"))
    var params: String = "{}"

    /// The environment whose code runs each firing.
    @Option(name: .customLong("env"), help: ArgumentHelp("The environment that runs the function.", valueName: "environment"))
    var environment: DeployEnvironment = .production

    /// The user each firing runs as; none runs it as the master.
    @Option(help: ArgumentHelp("The objectId of the user the function runs as (default: the master).", valueName: "id"))
    var user: String?

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Refuses an empty name, both or neither schedule, or parameters that are not an object;
    /// the server checks the rest (the cron text, the bounds).
    func validate() throws {
        guard !name.isEmpty, !function.isEmpty else {
            throw ValidationError("The timer and function names must not be empty.")
        }
        guard (cron == nil) != (every == nil) else {
            throw ValidationError("Give exactly one of --cron and --every.")
        }
        guard JSONText.object(Data(params.utf8)) != nil else {
            throw ValidationError(#"--params needs a JSON object such as '{"n": 1}', not '\#(params)'."#)
        }
    }

    /// Sends the timer and prints it as the server stored it.
    func run() async throws {
        try await ClientFailure.reporting {
            var body: [String: Any] = [
                "name": name, "function": function, "environment": environment.rawValue,
                "params": JSONText.object(Data(params.utf8)) ?? [:],
            ]
            if let cron { body["cron"] = cron }
            if let every { body["every"] = every }
            if let user { body["user"] = user }
            let answer = try await options.client().send(.POST, "/1.1/engine/timers", body: JSONText.data(body))
            try options.report(answer) { answer in ["Added timer:", TimersCommand.line(answer.object)] }
        }
    }
}
