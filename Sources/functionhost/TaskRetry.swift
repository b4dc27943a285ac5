import ArgumentParser
import NIOHTTP1

/// `functionhost tasks retry ID`: a failed task queued again with its attempts renewed.
struct TaskRetry: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Queue a failed task again, with its attempts renewed.")

    /// The task's uniqueId.
    @Argument(help: "The task's uniqueId.")
    var uniqueId: String

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// Retries the task and prints it as queued again.
    func run() async throws {
        try await ClientFailure.reporting {
            let answer = try await options.client().send(
                .POST, "/1.1/engine/cloud-queue/tasks/\(PathSegment.escaped(uniqueId))/retry")
            try options.report(answer) { answer in ["Queued again:", TasksCommand.line(answer.object)] }
        }
    }
}
