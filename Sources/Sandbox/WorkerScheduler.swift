import Synchronization

/// Hands the workers of one `CloudCode` to calls so that no function, and no client of a
/// function, takes more than its share: a script looping until its CPU limit holds only
/// workers of its own, and calls of other functions still find one free.
///
/// A worker is leased to one function and one client at a time (the lease's `key`); calls with
/// the same key share it, interleaving their steps as before (a call awaiting the database
/// holds no thread); while its current step is stuck, a call of the key takes a worker of its
/// own if its shares allow, else queues behind its own key's calls there. A call that needs a
/// worker of its own gets one when its function holds less than its share (half the pool at
/// most, less while other functions are busy too), its client less than half of that, and,
/// unless its function holds none yet, one worker stays free for a function that holds none.
/// Otherwise it waits in line; the line is served fairly (the function holding fewest workers
/// first), and bounded in length and in time. Only when every worker is leased may a call of a
/// function holding none share another key's worker whose step isn't stuck (a small pool).
final class WorkerScheduler: Sendable {
    /// Who a worker serves: one function, for one client (nil: a client that can't be told apart).
    struct Key: Hashable, Sendable {
        var function: String
        var client: String?
    }

    /// A waiter to wake, with the worker it got or why it got none.
    private typealias Grant = (CheckedContinuation<Result<Int, ScriptError>, Never>, Result<Int, ScriptError>)

    private struct Waiter {
        var ticket: Int
        var key: Key
        var giveUp: ContinuousClock.Instant
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<Result<Int, ScriptError>, Never>
    }

    private struct Lease {
        var key: Key
        /// Calls running on the worker under this lease.
        var calls: Int
        /// Calls of other keys sharing the worker because every worker was leased (see
        /// `dispatch`), by key.
        var guests: [Key: Int] = [:]
    }

    private struct State {
        /// Workers started and leased to no one.
        var idle: [Int] = []
        /// Workers started so far; the next one started gets this index.
        var started = 0
        var leases: [Int: Lease] = [:]
        var waiting: [Waiter] = []
        var nextTicket = 0
    }

    private let pool: CloudCode.Pool
    private let state = Mutex(State())
    /// The workers running a step past the stuck threshold now. Read once per pass over the
    /// leases and waiters (each read looks at every worker's clock), outside the lock.
    private let stuckWorkers: @Sendable () -> Set<Int>

    init(pool: CloudCode.Pool, stuckWorkers: @escaping @Sendable () -> Set<Int>) {
        self.pool = pool
        self.stuckWorkers = stuckWorkers
    }

    /// Workers leased to `function` now.
    func workers(of function: String) -> Int {
        state.withLock { $0.leases.values.filter { $0.key.function == function }.count }
    }

    /// Calls of `function` waiting in line.
    func waiting(for function: String) -> Int {
        state.withLock { $0.waiting.filter { $0.key.function == function }.count }
    }

    /// The worker a call with `key` runs on; waits in line while its share is used. Fails with
    /// `.busy` when the line is full, the wait passes the pool's bound or the calling task is
    /// cancelled (its client went away: it must not keep its place in the line), `.timeout`
    /// when the call's deadline passes first.
    func acquire(_ key: Key, deadline: ContinuousClock.Instant) async -> Result<Int, ScriptError> {
        let giveUp = min(deadline, .now + pool.queueWait)
        let ticket = state.withLock { state in
            state.nextTicket += 1
            return state.nextTicket
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let stuck = stuckWorkers()
                let granted = state.withLock { state -> [Grant] in
                    if let worker = join(key, stuck, &state) { return [(continuation, .success(worker))] }
                    // Checked under the lock the cancellation handler takes: a task cancelled
                    // before this point is refused here, one cancelled after finds its ticket.
                    if Task.isCancelled { return [(continuation, .failure(Self.gone(key.function)))] }
                    state.waiting.append(Waiter(ticket: ticket, key: key, giveUp: giveUp, deadline: deadline, continuation: continuation))
                    var granted = dispatch(stuck, &state)
                    // Not served at once, and the function's line is full: refused now, not later.
                    if let index = state.waiting.firstIndex(where: { $0.ticket == ticket }),
                        state.waiting.lazy.filter({ $0.key.function == key.function }).count > pool.queueLength
                    {
                        granted.append((state.waiting.remove(at: index).continuation, .failure(Self.busy(key.function))))
                    }
                    return granted
                }
                for (waiter, result) in granted { waiter.resume(returning: result) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.waiting.firstIndex(where: { $0.ticket == ticket }) else { return nil }
                return state.waiting.remove(at: index)
            }
            waiter?.continuation.resume(returning: .failure(Self.gone(key.function)))
        }
    }

    /// Ends the hold on `worker` of a call with `key`; the last call of a lease frees the
    /// worker. Called from the worker's own thread, after the step running when the call ended
    /// has finished.
    func release(_ worker: Int, _ key: Key) {
        let stuck = stuckWorkers()
        let granted = state.withLock { state -> [Grant] in
            guard var lease = state.leases[worker] else { return [] }
            if lease.key != key, let guests = lease.guests[key] {
                lease.guests[key] = guests > 1 ? guests - 1 : nil
            } else {
                lease.calls -= 1
            }
            if lease.calls > 0 || !lease.guests.isEmpty {
                state.leases[worker] = lease
            } else {
                state.leases[worker] = nil
                state.idle.append(worker)
            }
            return dispatch(stuck, &state)
        }
        for (waiter, result) in granted { waiter.resume(returning: result) }
    }

    /// Refuses the waiters past their wait, and serves any waiter a worker that stopped being
    /// stuck can take now. Called by the sweeper every few milliseconds.
    func sweep(now: ContinuousClock.Instant) {
        let stuck = stuckWorkers()
        let ended = state.withLock { state -> [Grant] in
            var ended: [Grant] = []
            state.waiting.removeAll { waiter in
                guard waiter.giveUp <= now else { return false }
                let error =
                    waiter.deadline <= now
                    ? ScriptError(.timeout, "The call ran past its deadline waiting for a worker.") : Self.busy(waiter.key.function)
                ended.append((waiter.continuation, .failure(error)))
                return true
            }
            return ended + dispatch(stuck, &state)
        }
        for (waiter, result) in ended { waiter.resume(returning: result) }
    }

    private static func busy(_ function: String) -> ScriptError {
        ScriptError(.busy, "Too many calls of '\(function)' are running or waiting; try again later.")
    }

    private static func gone(_ function: String) -> ScriptError {
        ScriptError(.busy, "The call of '\(function)' was cancelled while it waited for a worker.")
    }

    /// A worker already leased to `key` whose current step isn't stuck: the call shares it.
    private func join(_ key: Key, _ stuck: Set<Int>, _ state: inout State) -> Int? {
        let shared = state.leases.filter { $0.value.key == key && !stuck.contains($0.key) }.min { $0.value.calls < $1.value.calls }
        guard let worker = shared?.key else { return nil }
        state.leases[worker]?.calls += 1
        return worker
    }

    /// How a waiter gets its worker.
    private enum Placement {
        /// Shares `worker`, leased to its key (the worker's step may be stuck: the call waits
        /// there, behind its own key's calls only).
        case join(Int)
        /// Takes a free worker (started now if needed) under a lease of its own.
        case start
        /// Shares `worker`, leased to another key, as a guest (every worker is leased).
        case guest(Int)
    }

    /// Serves the waiters that may go now, fairest first, `stuck` being the workers whose step
    /// is stuck; returns whom to wake.
    private func dispatch(_ stuck: Set<Int>, _ state: inout State) -> [Grant] {
        var granted: [Grant] = []
        while !state.waiting.isEmpty {
            var held: [String: Int] = [:]
            var heldByKey: [Key: Int] = [:]
            for lease in state.leases.values {
                held[lease.key.function, default: 0] += 1
                heldByKey[lease.key, default: 0] += 1
                for guest in lease.guests.keys { held[guest.function, default: 0] += 1 }
            }
            let busyFunctions = Set(held.keys).union(state.waiting.map(\.key.function))
            let free = state.idle.count + (pool.workers - state.started)
            var best: (index: Int, held: Int, ticket: Int, placement: Placement)?
            for (index, waiter) in state.waiting.enumerated() {
                let holds = held[waiter.key.function] ?? 0
                guard let placement = placement(waiter.key, holds: holds, held: heldByKey, busy: busyFunctions.count, free: free, stuck, state)
                else { continue }
                if best.map({ (holds, waiter.ticket) < ($0.held, $0.ticket) }) ?? true {
                    best = (index, holds, waiter.ticket, placement)
                }
            }
            guard let best else { break }
            let waiter = state.waiting.remove(at: best.index)
            let worker: Int
            switch best.placement {
            case .join(let shared):
                worker = shared
                state.leases[worker]?.calls += 1
            case .guest(let shared):
                worker = shared
                state.leases[worker]?.guests[waiter.key, default: 0] += 1
            case .start:
                if let idle = state.idle.popLast() {
                    worker = idle
                } else {
                    worker = state.started
                    state.started += 1
                }
                state.leases[worker] = Lease(key: waiter.key, calls: 1)
            }
            granted.append((waiter.continuation, .success(worker)))
        }
        return granted
    }

    /// Where a call with `key` may go now, nil when it must wait: its key's worker whose step
    /// isn't stuck; else a free worker of its own, within its function's and client's shares
    /// (the last free one only for a function holding none); else, with every worker leased, a
    /// guest's place for a function holding none; else its key's stuck worker, behind its own
    /// calls. `holds` is the workers its function holds, `held` each key's, `stuck` the workers
    /// whose step is stuck.
    private func placement(
        _ key: Key, holds: Int, held: [Key: Int], busy: Int, free: Int, _ stuck: Set<Int>, _ state: State
    ) -> Placement? {
        let own = state.leases.filter { $0.value.key == key }
        if let worker = own.filter({ !stuck.contains($0.key) }).min(by: { $0.value.calls < $1.value.calls })?.key {
            return .join(worker)
        }
        if free > 0, holds == 0 || free > 1, holds < share(functions: busy),
            key.client == nil || held[key, default: 0] < clientShare(functions: busy)
        {
            return .start
        }
        if free == 0, holds == 0, let worker = guestWorker(stuck, state) { return .guest(worker) }
        if let worker = own.min(by: { $0.value.calls < $1.value.calls })?.key { return .join(worker) }
        return nil
    }

    /// With every worker leased, the one a call of a function holding none may share: one whose
    /// step isn't stuck, with the fewest calls (a call waiting on the database holds no thread,
    /// so a small pool still serves other functions meanwhile). Its function counts as holding
    /// it, so its next call can't spread over the others' workers.
    private func guestWorker(_ stuck: Set<Int>, _ state: State) -> Int? {
        state.leases.filter { !stuck.contains($0.key) }
            .min { $0.value.calls + $0.value.guests.values.reduce(0, +) < $1.value.calls + $1.value.guests.values.reduce(0, +) }?
            .key
    }

    /// The workers one function may hold while `functions` functions are running or waiting:
    /// an equal part of the pool with room for one more function, at most the pool's cap.
    private func share(functions: Int) -> Int {
        max(1, min(pool.perFunction, pool.workers / (functions + 1)))
    }

    /// The workers one client may hold of one function: half the function's share, so another
    /// client of the same function still finds room.
    private func clientShare(functions: Int) -> Int {
        max(1, min(pool.perClient, share(functions: functions) / 2))
    }
}
