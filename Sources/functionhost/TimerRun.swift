import ArgumentParser
import NIOHTTP1

/// `functionhost timers run NAME`: one firing now, outside the schedule.
struct TimerRun: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Fire a timer now: its function is queued as a task at once.")

    /// The timer's name.
    @Argument(help: "The timer's name.")
    var name: String

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Fires the timer and prints the task it queued (`functionhost tasks show ID` follows it).
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await options.client().send(.POST, "/1.1/engine/timers/\(PathSegment.escaped(name))/run")
            try options.report(answer) { answer in
                ["Fired timer \(name): task \(answer.string("uniqueId", default: "-")) \(answer.string("status", default: "queued"))."]
            }
        }
    }
}
