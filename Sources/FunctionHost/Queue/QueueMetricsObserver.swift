import CloudQueue
import Foundation
import Logging

/// Hears the queue's events on this host: counts them in `/metrics` and logs each attempt (the
/// function's own lines are logged by its call, tagged `task=<uniqueId>`).
struct QueueMetricsObserver: QueueObserver {
    let metrics: HostMetrics
    let logger: Logger
    /// The configuration's own observer, told everything after.
    let next: (any QueueObserver)?

    func attemptStarted(_ record: TaskRecord, attempt: Int, delay: Duration) {
        metrics.recordQueueDelay(delay)
        logger.info(
            "Task attempt started",
            metadata: [
                "task": .string(record.uniqueId), "function": .string(record.function), "attempt": .stringConvertible(attempt),
                "environment": .string(record.environment.rawValue), "origin": .string(record.origin.stored),
            ])
        next?.attemptStarted(record, attempt: attempt, delay: delay)
    }

    func attemptEnded(_ record: TaskRecord, attempt: TaskAttempt) {
        metrics.recordQueueTask(outcome: attempt.outcome.rawValue)
        let milliseconds = Int((attempt.endedAt.timeIntervalSince(attempt.startedAt) * 1000).rounded())
        var metadata: Logger.Metadata = [
            "task": .string(record.uniqueId), "attempt": .stringConvertible(attempt.number),
            "outcome": .string(attempt.outcome.rawValue), "ms": .stringConvertible(milliseconds),
        ]
        if let statusCode = attempt.statusCode { metadata["status"] = .stringConvertible(statusCode) }
        if let error = attempt.error { metadata["error"] = .string(error) }
        logger.log(level: attempt.outcome == .success ? .info : .warning, "Task attempt ended", metadata: metadata)
        next?.attemptEnded(record, attempt: attempt)
    }

    func enqueued(_ record: TaskRecord) {
        // A timer's firing is the task it enqueues: counted once, by the host whose enqueue
        // the database kept.
        if case .timer = record.origin { metrics.recordTimerFiring() }
        next?.enqueued(record)
    }
}
