import CloudQueue
import Hummingbird
import Logging

extension FunctionInvoker {
    /// What the Cloud Queue runs a task's attempt with: the task's function called as a
    /// client's call would be, as the master or as the task's user (never anyone the client
    /// that enqueued it named: only the master key gives a task a user), within the task's own
    /// time limit (the queue bounds it by `QueueSettings.maxTimeout`; a JavaScript function's
    /// sandbox stops it at the same deadline, its CPU time held to two thirds of it), each log
    /// line tagged `task=<uniqueId>`.
    func taskInvoker(logger: Logger) -> TaskInvoker {
        { invocation in
            let (result, logs) = await self.invoke(
                invocation.function, params: invocation.params, environment: invocation.environment,
                as: invocation.userId.map { Identity.user(id: $0) } ?? .master, timeout: invocation.timeout,
                tags: ["task": .string(invocation.uniqueId), "attempt": .stringConvertible(invocation.attempt)],
                logger: logger)
            switch result {
            case .success(let value): return (.success(value), logs)
            case .failure(let error): return (Self.taskOutcome(of: error), logs)
            }
        }
    }

    /// How a failed call ends a task's attempt. Past its deadline: timed out. Its function gone
    /// (404) or its user gone (211): failed at once, since no retry can change that. Any other
    /// error, the function's own among them, is retried while attempts are left, as LeanEngine
    /// retries a task whose function threw.
    static func taskOutcome(of error: any Error) -> TaskOutcome {
        if let error = error as? HostError, error.code == 124, error.status == .serviceUnavailable { return .timedOut }
        guard let answer = HostError(mapping: error) else {
            return .failure(statusCode: 500, code: 1, message: "The function failed on the server.", retryable: true)
        }
        let permanent = (answer.status == .notFound && answer.code == 1) || answer.code == 211
        return .failure(statusCode: Int(answer.status.code), code: answer.code, message: answer.message, retryable: !permanent)
    }
}
