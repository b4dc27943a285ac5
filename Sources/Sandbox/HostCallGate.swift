import Synchronization

/// The host calls of one invocation: at most `limit` run at once, at most `waitingLimit` more
/// wait in the order the script made them (the rest are refused), and all of them end with the
/// invocation.
///
/// Without it a script's loop of queries started one Swift task per query, every one running
/// at once and holding its answer in Swift memory, outside the JavaScript heap's ceiling, and
/// running on after the invocation had answered. Closing the gate (the invocation ended:
/// answered, failed or past its deadline) refuses the calls still waiting, so they never run,
/// and cancels the running ones' tasks (one waiting for its turn at the pool's gate for
/// background work, `BackgroundHostCalls`, leaves that line unrun). A waiting call holds its
/// arguments in Swift memory, so the line is bounded too: a loop saving a large object over
/// and over is refused past it.
final class HostCallGate: Sendable {
    /// A host call: runs once admitted, as a task the gate can cancel.
    typealias Job = @Sendable () async -> Void

    private struct State {
        var running: [Int: Task<Void, Never>] = [:]
        var waiting: [(ticket: Int, job: Job)] = []
        var nextTicket = 0
        var closed = false
    }

    private let limit: Int
    private let waitingLimit: Int
    private let state = Mutex(State())

    /// A gate letting `limit` calls run at once (at least one) and `waitingLimit` wait.
    init(limit: Int, waitingLimit: Int) {
        self.limit = max(1, limit)
        self.waitingLimit = max(0, waitingLimit)
    }

    /// Runs `job` now if fewer than `limit` calls are running, else once one ends; never once
    /// the gate is closed.
    ///
    /// - Throws: code 429 (as the pool's busy workers answer) when `limit` calls are running
    ///   and `waitingLimit` are waiting already; the job is dropped.
    func submit(_ job: @escaping Job) throws(HostCallError) {
        let full = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            if state.running.count < limit {
                state.nextTicket += 1
                start(state.nextTicket, job, &state)
            } else if state.waiting.count < waitingLimit {
                state.nextTicket += 1
                state.waiting.append((state.nextTicket, job))
            } else {
                return true
            }
            return false
        }
        if full {
            throw HostCallError(
                code: 429, message: "Too many host calls of this invocation are waiting (\(waitingLimit)); await some first.",
                status: 429)
        }
    }

    /// Refuses the waiting calls and cancels the running ones; later calls are refused at once.
    func close() {
        let running = state.withLock { state -> [Task<Void, Never>] in
            state.closed = true
            state.waiting.removeAll()
            return Array(state.running.values)
        }
        for task in running { task.cancel() }
    }

    /// Starts a call's task, held under the lock so it is stored before it can end (its end
    /// takes the same lock).
    private func start(_ ticket: Int, _ job: @escaping Job, _ state: inout State) {
        state.running[ticket] = Task { [self] in
            await job()
            finished(ticket)
        }
    }

    /// A call ended: the first waiting one, if any, takes its place.
    private func finished(_ ticket: Int) {
        state.withLock { state in
            state.running[ticket] = nil
            guard !state.closed, !state.waiting.isEmpty else { return }
            let next = state.waiting.removeFirst()
            start(next.ticket, next.job, &state)
        }
    }
}
