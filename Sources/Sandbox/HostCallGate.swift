import Synchronization

/// The host calls of one invocation: at most `limit` run at once, the rest wait in the order
/// the script made them, and all of them end with the invocation.
///
/// Without it a script's loop of queries started one Swift task per query, every one running
/// at once and holding its answer in Swift memory, outside the JavaScript heap's ceiling, and
/// running on after the invocation had answered. Closing the gate (the invocation ended:
/// answered, failed or past its deadline) refuses the calls still waiting, so they never run,
/// and cancels the running ones' tasks.
final class HostCallGate: Sendable {
    /// A host call: runs once admitted, as a task the gate can cancel.
    typealias Job = @Sendable () async -> Void

    private struct State {
        var running: [Int: Task<Void, Never>] = [:]
        var waiting: [(ticket: Int, job: Job)] = []
        var nextTicket = 0
        var closed = false
        /// The most that ran at once, for tests.
        var peak = 0
    }

    private let limit: Int
    private let state = Mutex(State())

    /// A gate letting `limit` calls run at once (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The most calls that ran at once so far.
    var peakRunning: Int { state.withLock { $0.peak } }

    /// Calls waiting for a place now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Runs `job` now if fewer than `limit` calls are running, else once one ends; never once
    /// the gate is closed.
    func submit(_ job: @escaping Job) {
        state.withLock { state in
            guard !state.closed else { return }
            state.nextTicket += 1
            if state.running.count < limit {
                start(state.nextTicket, job, &state)
            } else {
                state.waiting.append((state.nextTicket, job))
            }
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
        state.peak = max(state.peak, state.running.count)
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
