import ArgumentParser
import NIOHTTP1

/// `functionhost timers remove NAME`.
struct TimerRemove: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a timer.")

    /// The timer's name.
    @Argument(help: "The timer's name.")
    var name: String

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Removes the timer and confirms it.
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await options.client().send(.DELETE, "/1.1/engine/timers/" + PathSegment.escaped(name))
            try options.report(answer) { _ in ["Removed timer \(name)."] }
        }
    }
}
