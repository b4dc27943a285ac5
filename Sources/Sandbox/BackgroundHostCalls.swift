import Synchronization

/// The pool's gate for the host calls of answered invocations (their background work): at most
/// `limit` run at once across the pool, those of one function at most half of them; the rest
/// wait in the order they came, and a waiting call whose invocation ends leaves the line
/// without running.
///
/// Without it background work had no pool-wide bound on what it asks of the host: 64 answered
/// calls with 8 host calls each could queue 512 database reads ahead of plain REST reads until
/// their 15 s bound. A call made while its invocation's caller still waits for the answer never
/// waits here: only what nobody waits for is held back.
///
/// A waiting call is a suspended task: its invocation's `HostCallGate` cancels it when the
/// invocation ends (its background bound passed, it failed), which takes it out of the line.
final class BackgroundHostCalls: Sendable {
    private struct Waiter {
        var ticket: Int
        var function: String
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var running = 0
        var runningByFunction: [String: Int] = [:]
        /// In arrival order. Whenever fewer than `limit` run, every waiter's function holds its
        /// half already: each change of the counts admits whoever it makes room for.
        var waiting: [Waiter] = []
        var nextTicket = 0
        /// The most that ever ran at once: for tests, never a decision.
        var peak = 0

        mutating func admit(_ function: String) {
            running += 1
            runningByFunction[function, default: 0] += 1
            peak = max(peak, running)
        }
    }

    /// Host calls of answered invocations that may run at once in the pool.
    let limit: Int
    /// Of those, what one function's may take: half, at least one.
    let perFunction: Int
    private let state = Mutex(State())

    /// A gate letting `limit` background host calls run at once (at least one).
    init(limit: Int) {
        self.limit = max(1, limit)
        perFunction = max(1, self.limit / 2)
    }

    /// Background host calls running now, waiting now, and the most that ever ran at once.
    var counts: (running: Int, waiting: Int, peak: Int) {
        state.withLock { ($0.running, $0.waiting.count, $0.peak) }
    }

    /// Waits for a place for a host call of `function` and takes it (`leave` gives it back).
    /// Returns false, holding no place, once the calling task is cancelled: its invocation ended.
    func enter(_ function: String) async -> Bool {
        let ticket = state.withLock { state in
            state.nextTicket += 1
            return state.nextTicket
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let admitted = state.withLock { state -> Bool? in
                    // Checked under the lock the cancellation handler takes: a task cancelled
                    // before it got in line never joins it, one cancelled after is found there.
                    if Task.isCancelled { return false }
                    if state.running < limit, state.runningByFunction[function, default: 0] < perFunction {
                        state.admit(function)
                        return true
                    }
                    state.waiting.append(Waiter(ticket: ticket, function: function, continuation: continuation))
                    return nil
                }
                if let admitted { continuation.resume(returning: admitted) }
            }
        } onCancel: {
            let dropped = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.waiting.remove(at: index)
            }
            dropped?.continuation.resume(returning: false)
        }
    }

    /// Gives back the place a call of `function` took: the first waiters it makes room for
    /// (their functions under their half) take it, in the order they came.
    func leave(_ function: String) {
        let admitted = state.withLock { state -> [Waiter] in
            state.running -= 1
            let left = state.runningByFunction[function, default: 1] - 1
            state.runningByFunction[function] = left > 0 ? left : nil
            var admitted: [Waiter] = []
            var index = 0
            while state.running < limit, index < state.waiting.count {
                let next = state.waiting[index]
                guard state.runningByFunction[next.function, default: 0] < perFunction else {
                    index += 1
                    continue
                }
                state.waiting.remove(at: index)
                state.admit(next.function)
                admitted.append(next)
            }
            return admitted
        }
        for waiter in admitted { waiter.continuation.resume(returning: true) }
    }
}
