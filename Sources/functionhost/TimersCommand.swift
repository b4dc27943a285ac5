import ArgumentParser
import NIOHTTP1

/// `functionhost timers list|add|remove|run`: cloud functions run on a schedule.
struct TimersCommand: AsyncParsableCommand {
    /// The help text, name and subcommands.
    static let configuration = CommandConfiguration(
        commandName: "timers",
        abstract: "List, add, remove or run the timers that call cloud functions on a schedule.",
        subcommands: [TimerList.self, TimerAdd.self, TimerRemove.self, TimerRun.self])

    /// One timer as a line: name, function, schedule, environment, whether enabled, where it came
    /// from, its next and last firing.
    static func line(_ timer: [String: Any]) -> String {
        let schedule: String
        if let cron = timer["cron"] as? String {
            schedule = "cron '\(cron)'"
        } else if let every = timer["every"] as? Int {
            schedule = "every \(every)s"
        } else {
            schedule = "-"
        }
        let enabled = timer["enabled"] as? Bool ?? true
        var columns = [
            timer["name"] as? String ?? "-", timer["function"] as? String ?? "-", schedule,
            timer["environment"] as? String ?? "production", enabled ? "enabled" : "disabled",
            timer["source"] as? String ?? "api",
        ]
        if let user = timer["user"] as? String { columns.append("as user \(user)") }
        columns.append("next " + (timer["nextFireAt"] as? String ?? "-"))
        columns.append("last " + (timer["lastFiredAt"] as? String ?? "-"))
        return "  " + columns.joined(separator: "  ")
    }
}

/// `functionhost timers list`.
struct TimerList: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print every timer, with its next and last firing.")

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Fetches the timers and prints one line each.
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await options.client().send(.GET, "/1.1/engine/timers")
            try options.report(answer) { answer in
                let results = answer.object["results"] as? [[String: Any]] ?? []
                if results.isEmpty { return ["No timers."] }
                return results.map(TimersCommand.line)
            }
        }
    }
}
