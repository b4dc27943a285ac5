public import DataAPI
public import Foundation
public import JSON

/// Where a task is in its life.
public enum TaskStatus: String, Sendable, Hashable, CaseIterable {
    /// Waiting for its first run or its next retry.
    case queued
    /// A host runs it now (LeanEngine shows it as `queued`: it has no separate state).
    case running
    /// It ran and answered.
    case success
    /// It ran out of attempts (the dead letter, which `retry` puts back).
    case failed
}

/// One run of a task, as its record keeps it.
public struct TaskAttempt: Sendable, Hashable {
    /// How a run ended.
    public enum Outcome: String, Sendable, Hashable {
        /// The function answered.
        case success
        /// The function answered with an error (or couldn't be called).
        case error
        /// The function didn't answer within the task's time limit.
        case timeout
        /// The host running it stopped (its lease expired): whether it ran is unknown.
        case lost
    }

    /// Which run this was: 1 for the first.
    public var number: Int
    /// The host that ran it.
    public var host: String
    /// When it started.
    public var startedAt: Date
    /// When it ended (for a lost run, when another host found its lease expired).
    public var endedAt: Date
    /// How it ended.
    public var outcome: Outcome
    /// The HTTP status the call answered with (200 on success).
    public var statusCode: Int?
    /// The error's message, bounded.
    public var error: String?
    /// The function's log lines of this run, bounded.
    public var logs: [String]

    /// Creates an attempt.
    public init(
        number: Int, host: String, startedAt: Date, endedAt: Date, outcome: Outcome, statusCode: Int?, error: String?,
        logs: [String]
    ) {
        self.number = number
        self.host = host
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.outcome = outcome
        self.statusCode = statusCode
        self.error = error
        self.logs = logs
    }
}

/// A task as stored, with its latest attempts.
public struct TaskRecord: Sendable, Hashable {
    /// Its id, unique while its record is kept.
    public var uniqueId: String
    /// The cloud function it calls.
    public var function: String
    /// The params it is called with.
    public var params: JSONValue
    /// The environment whose code runs it.
    public var environment: EnvironmentName
    /// The user it runs as; nil: the master.
    public var userId: String?
    /// Where it is in its life.
    public var status: TaskStatus
    /// How many runs have started (lost ones included).
    public var attempt: Int
    /// How many runs may fail before it is failed for good.
    public var attempts: Int
    /// How many runs failed (error or timeout).
    public var failures: Int
    /// How many runs were lost with their host.
    public var lost: Int
    /// The fixed time between a failed run and the next.
    public var backoff: Duration
    /// How long its record is kept once it has finished.
    public var keepResult: Duration
    /// Whether a run that may not have happened is repeated.
    public var deliveryMode: DeliveryMode
    /// Lower runs first.
    public var priority: Int64
    /// Its time limit.
    public var timeout: Duration
    /// When it is next due (queued), or when its current run started (running).
    public var runAt: Date
    /// The host running it now.
    public var leaseOwner: String?
    /// When the current run's lease ends: past it, any host may take the task back.
    public var leaseUntil: Date?
    /// When it finished (success or failed for good).
    public var finishedAt: Date?
    /// When its record goes (finished tasks only).
    public var expiresAt: Date?
    /// The HTTP status of its last run's answer.
    public var statusCode: Int?
    /// The function's result, once it succeeded.
    public var result: JSONValue?
    /// The last failed run's error.
    public var error: String?
    /// When the next retry is due, while one is.
    public var retryAt: Date?
    /// When it was enqueued.
    public var createdAt: Date
    /// Who enqueued it.
    public var origin: TaskOrigin
    /// Its latest runs, oldest first (at most `QueueSettings.historyLimit`).
    public var history: [TaskAttempt]

    /// The status as LeanEngine's `GET /1.1/engine/cloud-queue/tasks/:uniqueId` answers it, with
    /// only LeanEngine's fields: `uniqueId`, `status` (`queued` while waiting or running,
    /// `success`, `failed`), and when they apply `finishedAt`, `statusCode`, `result`, `error`
    /// and `retryAt` (dates as ISO-8601 UTC strings).
    public var leanEngineJSON: JSONValue {
        var body: [String: JSONValue] = [
            "uniqueId": .string(uniqueId), "status": .string(status == .running ? "queued" : status.rawValue),
        ]
        if let finishedAt { body["finishedAt"] = .string(ISODate.string(fromMilliseconds: finishedAt.milliseconds)) }
        if let statusCode, status == .success || status == .failed { body["statusCode"] = .int(Int64(statusCode)) }
        if status == .success { body["result"] = result ?? .null }
        if let error, status != .success { body["error"] = .string(error) }
        if let retryAt, status == .queued { body["retryAt"] = .string(ISODate.string(fromMilliseconds: retryAt.milliseconds)) }
        return .object(body)
    }

    /// Whether a host may take it back: it is running and its lease has ended.
    public func leaseExpired(at now: Date) -> Bool {
        status == .running && (leaseUntil.map { $0 <= now } ?? true)
    }
}
