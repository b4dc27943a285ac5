import DataAPI
import Foundation
import JSON
import Logging

/// Claiming, running and finishing runs, and the records' housekeeping.
extension CloudQueue {
    /// Sweeps, takes back lost tasks, claims what is due and starts it; answers the runs started.
    func startDue() async -> [Task<Void, Never>] {
        let now = clock.now()
        do {
            // Expired records are swept once per poll interval, not every pass: nothing waits
            // on them, and a pass that starts a due task should cost little more than its read.
            if lastSweep.map({ now >= $0.adding(settings.pollInterval) }) ?? true {
                lastSweep = now
                try await sweep(now)
            }
            try await reclaimLost(now)
            let free = settings.concurrency - running
            guard free > 0 else { return [] }
            try await readDue(now)
            var started: [Task<Void, Never>] = []
            while started.count < free, !readAhead.isEmpty {
                let candidate = readAhead.removeFirst()
                guard let claimed = try await claim(candidate, now: now) else { continue }
                running += 1
                observer?.attemptStarted(claimed, attempt: claimed.attempt, delay: .milliseconds(now.milliseconds - candidate.runAt.milliseconds))
                started.append(Task { await self.execute(claimed) })
            }
            return started
        } catch {
            // Logged by the store; the next pass tries again.
            return []
        }
    }

    /// The most due tasks one read takes, best first.
    static let readAheadLimit = 64

    /// Reads the due tasks, best first, unless those read ahead are still good: read less than
    /// a poll interval ago, with no enqueue or retry on this host since (either clears them).
    /// Sorting a backlog of n tasks costs a scan of n; reading ahead pays it once per 64 claims
    /// rather than once per pass. A task that becomes due or is enqueued by another host in the
    /// meantime waits at most the poll interval, as it would for the poll itself; a candidate
    /// another host took or changed fails its claim and is skipped.
    private func readDue(_ now: Date) async throws(CloudQueueError) {
        if !readAhead.isEmpty, let at = readAheadAt, now < at.adding(settings.pollInterval) { return }
        readAhead = try await store.find(
            ["status": "queued", "runAt": ["$lte": .int(now.milliseconds)]],
            order: [SortKey(key: "priority", descending: false), SortKey(key: "runAt", descending: false)],
            limit: Self.readAheadLimit)
        readAheadAt = now
    }

    /// Takes a queued task for this host: nil when another host took it (or it changed) first.
    private func claim(_ record: TaskRecord, now: Date) async throws(CloudQueueError) -> TaskRecord? {
        var claimed = record
        claimed.status = .running
        claimed.attempt += 1
        claimed.runAt = now
        claimed.leaseOwner = settings.hostID
        // Past the time limit, the host itself gives up after one grace; the others wait two.
        claimed.leaseUntil = now.adding(record.timeout + settings.leaseGrace + settings.leaseGrace)
        claimed.retryAt = nil
        return try await store.replace(
            claimed,
            if: ["status": "queued", "attempt": .int(Int64(record.attempt)), "runAt": .int(record.runAt.milliseconds)])
    }

    /// Runs a claimed task and records how the run ended.
    func execute(_ record: TaskRecord) async {
        let start = clock.now()
        let invocation = TaskInvocation(
            uniqueId: record.uniqueId, function: record.function, params: record.params, environment: record.environment,
            userId: record.userId, attempt: record.attempt, deadline: start.adding(record.timeout), timeout: record.timeout,
            origin: record.origin)
        let ended = await AttemptRace.run(invoker, invocation, clock: clock, giveUpAt: invocation.deadline.adding(settings.leaseGrace))
        // Cancelled (the host shuts down): the run is left to its lease, and so to a host
        // that finds it lost.
        if let ended { await finish(record, startedAt: start, outcome: ended.outcome, logs: ended.logs) }
        running -= 1
        wakeUp()
    }

    /// Records a run's end, if this host still holds the task.
    private func finish(_ record: TaskRecord, startedAt start: Date, outcome: TaskOutcome, logs: [String]) async {
        let now = clock.now()
        var logs = logs
        var attempt = TaskAttempt(
            number: record.attempt, host: settings.hostID, startedAt: start, endedAt: now, outcome: .success, statusCode: 200,
            error: nil, logs: [])
        var next = record
        next.leaseOwner = nil
        next.leaseUntil = nil
        switch outcome {
        case .success(let value):
            let bytes = value.jsonBytes.count
            if bytes <= settings.maxResultBytes {
                next.result = value
            } else {
                next.result = nil
                logs.append("[queue] the result was \(bytes) bytes of JSON; it is not kept (the limit is \(settings.maxResultBytes)).")
            }
            next.status = .success
            next.statusCode = 200
            next.error = nil
            next.retryAt = nil
            next.finishedAt = now
            next.expiresAt = now.adding(record.keepResult)
        case .failure(let statusCode, let code, let message, let retryable):
            attempt.outcome = .error
            attempt.statusCode = statusCode
            attempt.error = Self.bounded("\(message) (code \(code))")
            next.failures += 1
            failed(&next, attempt, retry: retryable && next.failures < next.attempts, now: now)
        case .timedOut:
            attempt.outcome = .timeout
            attempt.statusCode = 503
            attempt.error = "The task didn't finish within its time limit of \(record.timeout.milliseconds) ms."
            next.failures += 1
            failed(&next, attempt, retry: record.deliveryMode == .atLeastOnce && next.failures < next.attempts, now: now)
        }
        attempt.logs = Self.bounded(logs, lines: settings.maxLogLines, bytes: settings.maxLogBytes)
        next.history = Array((record.history + [attempt]).suffix(settings.historyLimit))
        // The claim this run holds: its host, its attempt and the lease it was given. A task
        // removed while it ran and enqueued again under its uniqueId has the same host and
        // attempt when this host claims it again, but not the same lease.
        var claim: [String: JSONValue] = [
            "status": "running", "leaseOwner": .string(settings.hostID), "attempt": .int(Int64(record.attempt)),
        ]
        if let leaseUntil = record.leaseUntil { claim["leaseUntil"] = .int(leaseUntil.milliseconds) }
        do {
            guard let saved = try await store.replace(next, if: .object(claim)) else {
                logger.warning(
                    "cloud queue: a run ended after its task was taken back or removed; its outcome is dropped",
                    metadata: ["task": "\(record.uniqueId)", "attempt": "\(record.attempt)"])
                return
            }
            observer?.attemptEnded(saved, attempt: attempt)
        } catch {
            // Logged by the store; the lease will expire and another pass takes the task back.
        }
    }

    /// Sets a failed run's task up for its next retry, or fails it for good (the dead letter).
    private func failed(_ next: inout TaskRecord, _ attempt: TaskAttempt, retry: Bool, now: Date) {
        next.error = attempt.error
        next.statusCode = attempt.statusCode
        if retry {
            next.status = .queued
            next.runAt = now.adding(next.backoff)
            next.retryAt = next.runAt
        } else {
            next.status = .failed
            next.retryAt = nil
            next.finishedAt = now
            next.expiresAt = now.adding(settings.deadLetterKeep)
        }
    }

    /// Takes back tasks whose host's lease ended (the host died, or hangs): the lost run is
    /// recorded, and the task runs again unless it is `atMostOnce` or was lost too often.
    private func reclaimLost(_ now: Date) async throws(CloudQueueError) {
        let expired = try await store.find(
            ["status": "running", "leaseUntil": ["$lte": .int(now.milliseconds)]],
            order: [SortKey(key: "leaseUntil", descending: false)], limit: 20)
        for record in expired {
            let attempt = TaskAttempt(
                number: record.attempt, host: record.leaseOwner ?? "unknown", startedAt: record.runAt, endedAt: now, outcome: .lost,
                statusCode: nil, error: "The host running the task stopped before it finished (its lease ended).", logs: [])
            var next = record
            next.lost += 1
            next.leaseOwner = nil
            next.leaseUntil = nil
            next.history = Array((record.history + [attempt]).suffix(settings.historyLimit))
            let rerun = record.deliveryMode == .atLeastOnce && next.lost <= settings.maxLostAttempts
            if rerun {
                next.status = .queued
                next.runAt = now
                next.error = attempt.error
            } else {
                failed(&next, attempt, retry: false, now: now)
            }
            var condition: [String: JSONValue] = ["status": "running", "attempt": .int(Int64(record.attempt))]
            if let leaseUntil = record.leaseUntil { condition["leaseUntil"] = .int(leaseUntil.milliseconds) }
            if let saved = try await store.replace(next, if: .object(condition)) {
                logger.warning(
                    "cloud queue: a task's host stopped mid-run", metadata: ["task": "\(record.uniqueId)", "host": "\(attempt.host)"])
                observer?.attemptEnded(saved, attempt: attempt)
            }
        }
    }

    /// Removes finished tasks past `keepResult` and failed ones past `deadLetterKeep` (a
    /// batch per pass): their uniqueIds are free again. Past `maxKept` finished records, the
    /// oldest go first: clients can make an app's code enqueue (a hook), and tasks that finish or
    /// fail don't count against the cap on waiting ones, so their records are bounded here.
    private func sweep(_ now: Date) async throws(CloudQueueError) {
        let finished: JSONValue = ["$in": ["success", "failed"]]
        let limit: JSONValue = ["$lte": .int(now.milliseconds)]
        let expired = try await store.objectIds(["status": finished, "expiresAt": limit], limit: 100)
        for objectId in expired {
            try await store.delete(objectId: objectId, if: ["expiresAt": limit])
        }
        let excess = try await store.count(["status": finished]) - settings.maxKept
        guard excess > 0 else { return }
        let oldest = try await store.objectIds(
            ["status": finished], order: [SortKey(key: "finishedAt", descending: false)], limit: min(excess, 100))
        for objectId in oldest {
            try await store.delete(objectId: objectId, if: ["status": finished])
        }
    }

    /// An error message cut to 1 000 bytes.
    static func bounded(_ message: String) -> String {
        message.utf8.count <= 1000 ? message : String(decoding: message.utf8.prefix(1000), as: UTF8.self) + "…"
    }

    /// The first lines of a log, within a count and a size.
    static func bounded(_ lines: [String], lines maxLines: Int, bytes maxBytes: Int) -> [String] {
        var kept: [String] = []
        var total = 0
        for line in lines {
            guard kept.count < maxLines, total < maxBytes else {
                kept.append("[queue] \(lines.count - kept.count) more log lines not kept.")
                break
            }
            let cut = line.utf8.count <= maxBytes - total ? line : String(decoding: line.utf8.prefix(maxBytes - total), as: UTF8.self)
            kept.append(cut)
            total += cut.utf8.count
        }
        return kept
    }
}
