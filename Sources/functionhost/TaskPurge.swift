import ArgumentParser
import NIOHTTP1

/// `functionhost tasks purge --status S [--function F]`: removes every task of a status (of one
/// function), a thousand per request until none is left: the way out of a backlog, such as a
/// function that keeps enqueueing itself (deploy a fix first, or it enqueues more).
struct TaskPurge: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "purge", abstract: "Remove every task of a status (queued, success or failed), optionally of one function.")

    /// The statuses a purge takes: a running task ends under its lease.
    enum Status: String, CaseIterable, ExpressibleByArgument {
        case queued, success, failed
    }

    /// The tasks of this status are removed.
    @Option(help: ArgumentHelp("The status of the tasks to remove.", valueName: "status"))
    var status: Status

    /// Only this function's tasks, when given.
    @Option(help: ArgumentHelp("Only the tasks of this function.", valueName: "name"))
    var function: String?

    /// Server, credentials and output form.
    @OptionGroup var options: ClientOptions

    /// The most requests one purge makes: a million tasks, well past the queue's cap.
    static let maxRounds = 1000

    /// Removes the tasks, a request at a time, and prints how many went.
    func run() async throws {
        try await ClientFailure.reporting {
            var path = "/1.1/engine/cloud-queue/tasks?status=\(status.rawValue)"
            if let function { path += "&function=" + PathSegment.escaped(function) }
            let client = try options.client()
            var total = 0
            for _ in 0..<Self.maxRounds {
                let answer = try await client.send(.DELETE, path)
                let removed = answer.object["removed"] as? Int ?? 0
                total += removed
                if removed == 0 { break }
            }
            print("Removed \(total) \(status.rawValue) task\(total == 1 ? "" : "s").")
        }
    }
}
