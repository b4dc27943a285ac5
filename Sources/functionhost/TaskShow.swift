import ArgumentParser
import NIOHTTP1

/// `functionhost tasks show ID`: one task with every attempt.
struct TaskShow: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print a task, its result or error, and each attempt with its logs.")

    /// The task's uniqueId.
    @Argument(help: "The task's uniqueId.")
    var uniqueId: String

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Fetches the task and prints it, then its attempts.
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await options.client().send(.GET, "/1.1/engine/cloud-queue/tasks/" + PathSegment.escaped(uniqueId) + "?detail=1")
            try options.report(answer) { answer in
                var lines = [TasksCommand.line(answer.object)]
                if let result = answer.object["result"] { lines.append("  result: " + JSONText.string(result)) }
                for attempt in answer.object["history"] as? [[String: Any]] ?? [] {
                    let number = attempt["number"] as? Int ?? 0
                    let outcome = attempt["outcome"] as? String ?? "running"
                    var line = "  attempt \(number): \(outcome) on \(attempt["host"] as? String ?? "-")"
                    line += " from \(attempt["startedAt"] as? String ?? "-") to \(attempt["endedAt"] as? String ?? "-")"
                    if let error = attempt["error"] as? String, !error.isEmpty { line += ": \(error)" }
                    lines.append(line)
                    lines += (attempt["logs"] as? [String] ?? []).map { "    " + $0 }
                }
                return lines
            }
        }
    }
}
