import ArgumentParser
import Foundation
import NIOHTTP1

/// `functionhost tasks list|show|retry|purge`: the Cloud Queue's tasks.
struct TasksCommand: AsyncParsableCommand {
    /// The help text, name and subcommands.
    static let configuration = CommandConfiguration(
        commandName: "tasks",
        abstract: "List, show, retry or purge the Cloud Queue's tasks.",
        subcommands: [TaskList.self, TaskShow.self, TaskRetry.self, TaskPurge.self])

    /// One task as a line: its id, status, function, attempts made of those allowed, when it is
    /// due or finished, and its error.
    static func line(_ task: [String: Any]) -> String {
        var columns = [
            task["uniqueId"] as? String ?? "-", task["status"] as? String ?? "-", task["function"] as? String ?? "-",
            "attempt \(task["attempt"] as? Int ?? 0)/\(task["attempts"] as? Int ?? 1)",
        ]
        if let finished = task["finishedAt"] as? String {
            columns.append("finished " + finished)
        } else if let due = task["runAt"] as? String {
            columns.append("due " + due)
        }
        if let error = task["error"] as? String, !error.isEmpty {
            columns.append("error: " + (error.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""))
        }
        return "  " + columns.joined(separator: "  ")
    }
}

/// `functionhost tasks list [--status S] [--limit N]`.
struct TaskList: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Print the tasks, optionally only those of one status (failed: the dead letters).")

    /// The statuses a task has.
    enum Status: String, CaseIterable, ExpressibleByArgument {
        case queued, running, success, failed
    }

    /// Only tasks of this status, when given.
    @Option(help: ArgumentHelp("Only tasks of this status.", valueName: "status"))
    var status: Status?

    /// How many at most; the server bounds it too.
    @Option(help: ArgumentHelp("How many tasks at most.", valueName: "n"))
    var limit: Int = 100

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Refuses a limit the server would refuse anyway.
    func validate() throws {
        guard (1...1000).contains(limit) else { throw ValidationError("--limit must be between 1 and 1000.") }
    }

    /// Fetches the tasks and prints one line each.
    func run() async throws {
        try await ClientFailure.reporting {
            var query = "?limit=\(limit)"
            if let status { query += "&status=\(status.rawValue)" }
            let answer = try await options.client().send(.GET, "/1.1/engine/cloud-queue/tasks" + query)
            try options.report(answer) { answer in
                let results = answer.object["results"] as? [[String: Any]] ?? []
                if results.isEmpty { return ["No tasks."] }
                return results.map(TasksCommand.line)
            }
        }
    }
}
