import Foundation
public import Logging

/// Fires the app's timers: each firing is a task put in the Cloud Queue.
///
/// Every host runs one; they share the `_Timer` records. A due firing's task has the same
/// uniqueId on every host (`timer-<name>-<due epoch seconds>`), so the queue keeps one however
/// many hosts enqueue it, and the timer's next fire time moves on by a conditional update from
/// the time that was due, which one host's update matches. A host that dies between the two
/// leaves the timer due: the next pass (on any host) enqueues the same id again, a duplicate
/// while the first is kept, and moves it on.
public actor TimerScheduler {
    let store: TimerStore
    let queue: CloudQueue
    let clock: any QueueClock
    let logger: Logger

    /// A scheduler over the app's timers, firing into `queue`.
    public init(store: TimerStore, queue: CloudQueue, clock: any QueueClock, logger: Logger) {
        self.store = store
        self.queue = queue
        self.clock = clock
        self.logger = logger
    }

    // MARK: Managing timers

    /// Every timer, by name.
    public func timers() async throws(CloudQueueError) -> [TimerDefinition] {
        try await store.all()
    }

    /// The timer named `name`; nil when there is none.
    public func timer(name: String) async throws(CloudQueueError) -> TimerDefinition? {
        try TimerDefinition.checkName(name)
        return try await store.get(name)
    }

    /// Sets a timer (adding it or replacing the one of its name), due next at its schedule's first
    /// time after now. A deploy's timer doesn't replace an operator's (`source: .api`) of the same
    /// name: that one is kept and answered.
    ///
    /// - Throws: `badRequest` for a definition out of bounds or a schedule with no time left
    ///   after now, `tooMany` past `TimerDefinition.maxTimers`.
    @discardableResult
    public func save(_ definition: TimerDefinition) async throws(CloudQueueError) -> TimerDefinition {
        var timer = try definition.validated(by: queue.settings)
        let stored = try await store.get(timer.name)
        if let stored, stored.source == .api, timer.source == .deploy { return stored }
        timer.lastFiredAt = stored?.lastFiredAt
        timer.lastTaskId = stored?.lastTaskId
        timer.nextFireAt = nil
        if timer.enabled {
            guard let next = timer.schedule.nextFire(after: clock.now(), in: timer.timeZone) else {
                throw .badRequest("The timer's schedule has no time left to fire at (in \(timer.timeZone.identifier)).")
            }
            timer.nextFireAt = next
        }
        return try await store.put(timer)
    }

    /// Removes the timer named `name`: it fires no more (a firing already enqueued still runs).
    ///
    /// - Throws: `notFound` when there is none.
    public func remove(name: String) async throws(CloudQueueError) {
        try TimerDefinition.checkName(name)
        guard try await store.remove(name) else { throw Self.notFound(name) }
    }

    /// The task of the timer's last firing (its status, result or error, its attempts); nil
    /// when it hasn't fired, or the record's time is up (5 minutes by default, as LeanEngine).
    public func lastRun(name: String) async throws(CloudQueueError) -> TaskRecord? {
        guard let timer = try await timer(name: name) else { throw Self.notFound(name) }
        guard let id = timer.lastTaskId else { return nil }
        return try await queue.task(uniqueId: id)
    }

    /// Fires the timer now, out of its schedule (`functionhost timers run NAME`), whether
    /// enabled or not; its schedule is unchanged.
    ///
    /// - Throws: `notFound` when there is no such timer; the queue's errors.
    public func runNow(name: String) async throws(CloudQueueError) -> TaskRecord {
        guard let timer = try await timer(name: name) else { throw Self.notFound(name) }
        var request = timer.firing(dueAt: clock.now())
        // Its own id: a run by hand is not the scheduled firing of the same second.
        request.uniqueId = "timer-\(timer.name)-run-\(UUID().uuidString.lowercased().prefix(8))"
        let record = try await queue.enqueue(request)
        try await store.recordRun(timer.name, at: record.createdAt, taskId: record.uniqueId)
        return record
    }

    // MARK: Firing

    /// One pass: enqueues the firing of each enabled timer due now and moves its next fire time
    /// on. A timer that missed several times (every host was down) fires once, for the first
    /// time it missed, and is next due at its first time after now. Answers how many firings
    /// this host enqueued (another host's are duplicates, not counted).
    public func fireDue() async -> Int {
        let now = clock.now()
        let due: [TimerDefinition]
        do {
            due = try await store.due(at: now)
        } catch {
            return 0  // Logged by the store; the next pass tries again.
        }
        var enqueued = 0
        for timer in due {
            guard let dueAt = timer.nextFireAt else { continue }
            let request = timer.firing(dueAt: dueAt)
            do {
                _ = try await queue.enqueue(request)
                enqueued += 1
            } catch where error.kind == .duplicate {
                // Another host enqueued this firing: only the fire time is left to move on.
            } catch where error.kind == .badRequest {
                // The definition can't make a task (it was valid when set; bounds may have
                // changed): the firing is dropped, not retried on every pass.
                logger.error("timer firing refused", metadata: ["timer": "\(timer.name)", "error": "\(error.message)"])
            } catch {
                // The queue is full or the database failed: the timer stays due for the next pass.
                logger.warning("timer firing not enqueued", metadata: ["timer": "\(timer.name)", "error": "\(error.message)"])
                continue
            }
            let next = timer.schedule.nextFire(after: max(now, dueAt), in: timer.timeZone)
            do {
                _ = try await store.advance(timer.name, from: dueAt, to: next, taskId: request.uniqueId)
            } catch {
                continue  // Logged by the store; the next pass enqueues a duplicate and moves it on.
            }
        }
        return enqueued
    }

    /// Fires timers until the calling task is cancelled: a pass, then a wait until the earliest
    /// next fire time, or the queue's poll interval at most (timers set on other hosts).
    public func run() async {
        while !Task.isCancelled {
            _ = await fireDue()
            let now = clock.now()
            var wake = now.adding(queue.settings.pollInterval)
            // A timer still due (its firing couldn't be enqueued) waits for the next poll: it
            // must not spin the loop.
            if let earliest = try? await store.earliestFire(), earliest > now, earliest < wake { wake = earliest }
            do {
                try await clock.sleep(until: wake)
            } catch {
                return
            }
        }
    }

    private static func notFound(_ name: String) -> CloudQueueError {
        CloudQueueError(.notFound, code: 404, "No timer named '\(name)'.")
    }
}
