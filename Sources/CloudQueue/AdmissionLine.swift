import Synchronization

/// Lets one caller at a time through a count-then-write step, in order of arrival: the caps on
/// waiting tasks and on timers count what is stored, then store one more, and two callers that
/// counted together would both pass. Hosts sharing a PostgreSQL each have their own line, so
/// together they pass a cap by at most one per other host: a bound, not an exact figure.
final class AdmissionLine: Sendable {
    private struct State {
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// An open line.
    init() {}

    /// Returns once the caller's turn has come; the caller then calls `leave` exactly once.
    /// Not cancellable: a turn is a count and a write, each within the statement budget.
    func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if admitted { continuation.resume() }
        }
    }

    /// Ends the current turn: the next caller in line goes on.
    func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
