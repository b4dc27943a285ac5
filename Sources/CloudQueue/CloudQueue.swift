public import DataAPI
public import Foundation
import JSON
public import Logging

/// The Cloud Queue of one host: tasks that call cloud functions later, retried with a back-off,
/// kept in the database (`_CloudTask`), so every host on it shares them and a host that dies
/// mid-run leaves its task to the others.
///
/// A task runs on one host at a time: a host claims it by a conditional update from `queued`
/// (or from `running` with an expired lease) to `running` with its own lease, and the database
/// lets one such update match. A host finishes only a run it still holds.
public actor CloudQueue {
    /// The bounds and the host's share of the work.
    public nonisolated let settings: QueueSettings
    let store: TaskStore
    let clock: any QueueClock
    let invoker: TaskInvoker
    let logger: Logger
    let observer: (any QueueObserver)?
    /// Runs in flight on this host.
    var running = 0
    /// The run loop's current wait, cancelled to wake it early.
    private var sleeper: Task<Void, Never>?
    /// Whether something happened (an enqueue, a run's end) since the run loop last looked.
    private var pendingWake = false
    /// Enqueues on this host count the waiting tasks and store theirs one at a time.
    private let admission = AdmissionLine()
    /// Due tasks read ahead of this host's free slots, best first, and when they were read: the
    /// passes that follow claim from here instead of each sorting the whole backlog again.
    var readAhead: [TaskRecord] = []
    var readAheadAt: Date?
    /// When this host last swept expired records.
    var lastSweep: Date?

    /// Creates the queue of one host over the app's data service.
    public init(
        data: DataService, clock: any QueueClock, settings: QueueSettings, invoker: @escaping TaskInvoker, logger: Logger,
        observer: (any QueueObserver)? = nil
    ) {
        self.settings = settings
        self.store = TaskStore(data: data, logger: logger)
        self.clock = clock
        self.invoker = invoker
        self.logger = logger
        self.observer = observer
    }

    // MARK: Tasks

    /// Puts a task in the queue; it runs once it is due (now, or after its delay).
    ///
    /// - Throws: `badRequest` for a request out of bounds, `duplicate` while a task with its
    ///   uniqueId is kept, `tooMany` when `maxQueued` tasks wait already.
    public func enqueue(_ request: TaskRequest) async throws(CloudQueueError) -> TaskRecord {
        let request = try request.validated(by: settings)
        let now = clock.now()
        await admission.enter()
        defer { admission.leave() }
        try await checkRoom(for: request)
        let record = TaskRecord(
            uniqueId: request.uniqueId ?? UUID().uuidString.lowercased(), function: request.function, params: request.params,
            environment: request.environment, userId: request.userId, status: .queued, attempt: 0, attempts: request.attempts,
            failures: 0, lost: 0, backoff: request.backoff, keepResult: request.keepResult, deliveryMode: request.deliveryMode,
            priority: request.priority ?? now.milliseconds, timeout: request.timeout ?? min(settings.defaultTimeout, settings.maxTimeout),
            runAt: now.adding(request.delay), leaseOwner: nil, leaseUntil: nil, finishedAt: nil, expiresAt: nil, statusCode: nil,
            result: nil, error: nil, retryAt: nil, createdAt: now, origin: request.origin, history: [])
        do {
            try await store.create(record)
        } catch where error.kind == .duplicate {
            // A record kept past its time is as good as gone: take its id (if no other host
            // did meanwhile).
            guard let existing = try await store.get(record.uniqueId, in: record.environment), existing.isExpired(at: now),
                try await store.delete(existing, if: ["expiresAt": ["$lte": .int(now.milliseconds)]])
            else { throw error }
            try await store.create(record)
        }
        observer?.enqueued(record)
        // The new task may go before those read ahead.
        readAhead = []
        wakeUp()
        return record
    }

    /// Refuses a task past the cap on waiting tasks (`maxQueued`), or, for staging's, past
    /// staging's share of it (a tenth): a staging function called by any client must not fill
    /// production's queue. A timer's firing is never refused: there are at most 1 000 timers,
    /// each with one firing due at a time, and a backlog must not stop a schedule.
    private func checkRoom(for request: TaskRequest) async throws(CloudQueueError) {
        if request.origin.isTimer { return }
        let waiting: JSONValue = ["$in": ["queued", "running"]]
        if request.environment == .staging {
            let share = settings.stagingMaxQueued
            guard try await store.count(["status": waiting, "environment": "staging"]) < share else {
                throw .queueFull(share, environment: .staging)
            }
        }
        guard try await store.count(["status": waiting]) < settings.maxQueued else { throw .queueFull(settings.maxQueued) }
    }

    /// The task with this uniqueId, in `environment` or in any (production's first: each
    /// environment has its own uniqueIds); nil when there is none (or its record's time is up).
    ///
    /// - Throws: `badRequest` for an id no task can have.
    public func task(uniqueId: String, in environment: EnvironmentName? = nil) async throws(CloudQueueError) -> TaskRecord? {
        try Self.checkId(uniqueId)
        guard let record = try await store.get(uniqueId, in: environment), !record.isExpired(at: clock.now()) else { return nil }
        return record
    }

    /// The most tasks one listing answers.
    public static let maxListLimit = 100

    /// Tasks in uniqueId order, those with `status` only when it is given, from the one after
    /// `after`: the master's listing (the dead letter is `status: .failed`).
    ///
    /// - Throws: `badRequest` for a limit outside 1...100 or a malformed `after`.
    public func tasks(status: TaskStatus?, limit: Int, after: String?) async throws(CloudQueueError) -> [TaskRecord] {
        guard (1...Self.maxListLimit).contains(limit) else {
            throw .badRequest("limit must be 1 to \(Self.maxListLimit).")
        }
        var condition: [String: JSONValue] = [:]
        if let status { condition["status"] = .string(status.rawValue) }
        if let after {
            try Self.checkId(after)
            condition["uniqueId"] = ["$gt": .string(after)]
        }
        let now = clock.now()
        return try await store.find(.object(condition), order: [SortKey(key: "uniqueId", descending: false)], limit: limit)
            .filter { !$0.isExpired(at: now) }
    }

    /// Puts a failed task (the dead letter) back in the queue, due now, with all its attempts
    /// again; its history stays.
    ///
    /// - Throws: `notFound` when there is no such task, `badRequest` when it hasn't failed.
    public func retry(uniqueId: String) async throws(CloudQueueError) -> TaskRecord {
        guard let record = try await task(uniqueId: uniqueId) else { throw .taskNotFound(uniqueId) }
        guard record.status == .failed else {
            throw .badRequest("Only a failed task can be retried; task '\(uniqueId)' is \(record.status.rawValue).")
        }
        var next = record
        next.status = .queued
        next.failures = 0
        next.lost = 0
        next.runAt = clock.now()
        next.finishedAt = nil
        next.expiresAt = nil
        next.retryAt = nil
        next.error = nil
        next.statusCode = nil
        next.result = nil
        guard let saved = try await store.replace(next, if: ["status": "failed", "attempt": .int(Int64(record.attempt))]) else {
            throw .badRequest("Task '\(uniqueId)' changed meanwhile; read it again.")
        }
        readAhead = []
        wakeUp()
        return saved
    }

    /// Removes a task, whatever its state (a run in flight finishes, but its result is dropped).
    ///
    /// - Throws: `notFound` when there is no such task.
    public func remove(uniqueId: String) async throws(CloudQueueError) {
        guard let record = try await task(uniqueId: uniqueId), try await store.delete(record) else {
            throw .taskNotFound(uniqueId)
        }
    }

    /// The most tasks one purge removes.
    public static let maxPurge = 1000

    /// Removes up to `maxPurge` tasks of `status` (not `running`: a run in flight ends under its
    /// lease), of `function` only when it is given: the master's way out of a backlog, such as a
    /// function that keeps enqueueing itself. Answers how many it removed; call again until 0.
    ///
    /// - Throws: `badRequest` for `running` or a malformed function name.
    public func purge(status: TaskStatus, function: String?) async throws(CloudQueueError) -> Int {
        guard status != .running else {
            throw .badRequest("Running tasks can't be purged: remove each by its uniqueId, or let it end.")
        }
        var condition: [String: JSONValue] = ["status": .string(status.rawValue)]
        if let function {
            try TaskRequest.checkFunctionName(function)
            condition["function"] = .string(function)
        }
        var removed = 0
        for objectId in try await store.objectIds(.object(condition), limit: Self.maxPurge) {
            // Only if it is still in that state: a task claimed meanwhile runs on.
            if try await store.delete(objectId: objectId, if: ["status": .string(status.rawValue)]) { removed += 1 }
        }
        readAhead = []
        return removed
    }

    /// When the next task is due, or the earliest lease of a running one ends; nil when
    /// neither is pending.
    public func nextDue() async -> Date? {
        do {
            let queued = try await store.find(["status": "queued"], order: [SortKey(key: "runAt", descending: false)], limit: 1)
            let leased = try await store.find(
                ["status": "running"], order: [SortKey(key: "leaseUntil", descending: false)], limit: 1)
            return (queued.map(\.runAt) + leased.compactMap(\.leaseUntil)).min()
        } catch {
            return nil
        }
    }

    /// An id a task can have: what a timer's firing may use (the longest), of name characters.
    static func checkId(_ uniqueId: String) throws(CloudQueueError) {
        guard (1...TaskRequest.maxTimerUniqueIdLength).contains(uniqueId.utf8.count),
            uniqueId.unicodeScalars.allSatisfy(TaskRequest.isNameCharacter)
        else { throw .badRequest("uniqueId must be letters, digits, '_' or '-'.") }
    }

    // MARK: Running

    /// One pass: removes records whose time is up, takes back tasks whose host died, and runs
    /// what is due (by priority, then due time; as many as this host's free slots), waiting for
    /// those runs. Answers how many runs it started. Cancelled, it cancels its runs, whose
    /// records are left to their leases (as when the host dies).
    public func runDue() async -> Int {
        let started = await startDue()
        // Cancelling the pass cancels its runs (their records are then left to their leases).
        await withTaskCancellationHandler {
            for run in started { await run.value }
        } onCancel: {
            for run in started { run.cancel() }
        }
        return started.count
    }

    /// Runs the queue until the calling task is cancelled: a pass, then a wait until the next
    /// task is due, the poll interval (for other hosts' tasks), an enqueue or a run's end.
    /// Runs in flight when it is cancelled are left to their leases.
    public func run() async {
        while !Task.isCancelled {
            pendingWake = false
            _ = await startDue()
            let now = clock.now()
            var wake = now.adding(settings.pollInterval)
            // A task already due but not started waits for a free slot (a run's end wakes the
            // loop) or the next poll: it must not spin the loop.
            if let due = await nextDue(), due > now, due < wake { wake = due }
            await sleep(until: wake)
        }
    }

    /// Waits until `deadline`, or until `wakeUp`, or until the calling task is cancelled.
    private func sleep(until deadline: Date) async {
        guard !pendingWake else { return }
        let clock = self.clock
        let sleeper = Task { _ = try? await clock.sleep(until: deadline) }
        self.sleeper = sleeper
        await withTaskCancellationHandler {
            await sleeper.value
        } onCancel: {
            sleeper.cancel()
        }
        self.sleeper = nil
    }

    /// Wakes the run loop: there may be work it doesn't know of.
    func wakeUp() {
        pendingWake = true
        sleeper?.cancel()
    }
}

extension TaskRecord {
    /// Whether its record's time is up (a finished task past `keepResult`, a failed one past
    /// the dead letter's keep).
    func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }
}
