public import DataAPI
public import Foundation
public import JSON

/// One run of a task, as the host's invoker gets it: which function, with what, as whom, and by
/// when it must answer.
public struct TaskInvocation: Sendable, Hashable {
    /// The task's id.
    public var uniqueId: String
    /// The cloud function to call.
    public var function: String
    /// Its params.
    public var params: JSONValue
    /// The environment whose code runs it.
    public var environment: EnvironmentName
    /// The user to run it as (the invoker fetches it); nil: the master.
    public var userId: String?
    /// Which run this is: 1 for the first.
    public var attempt: Int
    /// When the call must have answered: past it, the invoker should stop it and answer
    /// `.timedOut` (the queue records a timeout anyway once the grace after it has passed).
    public var deadline: Date
    /// The task's time limit (`deadline` is its start plus this).
    public var timeout: Duration
    /// Who enqueued the task.
    public var origin: TaskOrigin

    /// Creates an invocation.
    public init(
        uniqueId: String, function: String, params: JSONValue, environment: EnvironmentName, userId: String?, attempt: Int,
        deadline: Date, timeout: Duration, origin: TaskOrigin
    ) {
        self.uniqueId = uniqueId
        self.function = function
        self.params = params
        self.environment = environment
        self.userId = userId
        self.attempt = attempt
        self.deadline = deadline
        self.timeout = timeout
        self.origin = origin
    }
}

/// How a run ended, as the invoker reports it.
public enum TaskOutcome: Sendable, Hashable {
    /// The function answered with this result.
    case success(JSONValue)
    /// The function answered with an error (or couldn't be called: no such function, no such
    /// user). `retryable: false` fails the task at once, whatever attempts it has left.
    case failure(statusCode: Int, code: Int, message: String, retryable: Bool)
    /// The function didn't answer by the deadline.
    case timedOut
}

/// What runs a task's function: the host's (it calls the function as a client's call would,
/// with the task's identity), or a test's. It gets the run and answers how it ended and the
/// function's log lines of that run.
public typealias TaskInvoker = @Sendable (TaskInvocation) async -> (outcome: TaskOutcome, logs: [String])

/// Hears the queue's events, for metrics and logs (the host implements it). Called on the
/// queue's actor: implementations return quickly.
public protocol QueueObserver: Sendable {
    /// A run started, `delay` after the task was due.
    func attemptStarted(_ record: TaskRecord, attempt: Int, delay: Duration)
    /// A run ended (`attempt.outcome` says how; a lost run is reported by the host that found it).
    func attemptEnded(_ record: TaskRecord, attempt: TaskAttempt)
    /// A task was enqueued.
    func enqueued(_ record: TaskRecord)
}
