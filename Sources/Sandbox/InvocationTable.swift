import Synchronization

/// The invocations in flight, shared by the callers waiting on them, the worker threads running
/// them and the sweeper that enforces their deadlines.
///
/// An invocation ends exactly once, whoever gets there first: the script settling, the script
/// failing, or the deadline passing. Ending removes the entry, so later answers for it (a host
/// call or a timer that comes back late) find nothing and are dropped.
final class InvocationTable: Sendable {
    /// How an invocation ended: the outcome's JSON text, or why the script was stopped.
    typealias Ending = Result<String, ScriptError>

    private struct Entry {
        var continuation: CheckedContinuation<Ending, Never>
        var host: any SandboxHost
        var worker: Int
        var deadline: ContinuousClock.Instant
        var cpuLeft: Double
        /// Whether a step has run, so the script holds state for it in its engine.
        var started = false
    }

    private let entries = Mutex<[Int: Entry]>([:])
    private let lastID = Atomic<Int>(0)

    /// A fresh invocation id.
    /// How many invocations are in flight.
    var count: Int { entries.withLock { $0.count } }

    func nextID() -> Int {
        lastID.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Registers an invocation that `worker` runs for `host` until `deadline`.
    func insert(
        _ id: Int, worker: Int, host: any SandboxHost, deadline: ContinuousClock.Instant, cpuSeconds: Double,
        continuation: CheckedContinuation<Ending, Never>
    ) {
        entries.withLock {
            $0[id] = Entry(continuation: continuation, host: host, worker: worker, deadline: deadline, cpuLeft: cpuSeconds)
        }
    }

    /// Ends an invocation, if it hasn't ended yet, and wakes its caller.
    func finish(_ id: Int, _ ending: Ending) {
        let entry = entries.withLock { $0.removeValue(forKey: id) }
        entry?.continuation.resume(returning: ending)
    }

    /// Ends every invocation that has started on `worker` (its engine was replaced under
    /// them); those still queued will start on the new engine.
    func finishStarted(onWorker worker: Int, _ error: ScriptError) {
        let ended = entries.withLock { entries in
            let ids = entries.filter { $0.value.worker == worker && $0.value.started }.map(\.key)
            return ids.compactMap { entries.removeValue(forKey: $0) }
        }
        for entry in ended { entry.continuation.resume(returning: .failure(error)) }
    }

    /// Ends the invocations past their deadline and returns their ids and workers, so the
    /// scripts' leftovers can be dropped.
    func expire(now: ContinuousClock.Instant) -> [(id: Int, worker: Int)] {
        let expired = entries.withLock { entries in
            let ids = entries.filter { $0.value.deadline <= now }.map(\.key)
            return ids.compactMap { id in entries.removeValue(forKey: id).map { (id, $0) } }
        }
        for (_, entry) in expired {
            entry.continuation.resume(returning: .failure(ScriptError(.timeout, "The call ran past its deadline.")))
        }
        return expired.map { ($0.0, $0.1.worker) }
    }

    /// The host and deadline of a live invocation.
    func host(of id: Int) -> (host: any SandboxHost, deadline: ContinuousClock.Instant)? {
        entries.withLock { $0[id].map { ($0.host, $0.deadline) } }
    }

    /// The invocation a late answer or timer of invocation `id` runs under: `id` while it is
    /// live; once it has ended, the started invocation on `worker` with the latest deadline
    /// (code of another call may be awaiting the answer: a promise shared through module
    /// state); nil when none is left, as then nothing can be awaiting it.
    func owner(for id: Int, onWorker worker: Int) -> Int? {
        entries.withLock { entries in
            if entries[id] != nil { return id }
            return entries.filter { $0.value.worker == worker && $0.value.started }
                .max { $0.value.deadline < $1.value.deadline }?.key
        }
    }

    /// Marks a step of the invocation as running and returns the CPU seconds it has left, nil
    /// once it has ended.
    func beginStep(_ id: Int) -> Double? {
        entries.withLock { entries in
            entries[id]?.started = true
            return entries[id]?.cpuLeft
        }
    }

    /// Counts CPU time a step of the invocation used against its budget.
    func charge(_ id: Int, seconds: Double) {
        entries.withLock { $0[id]?.cpuLeft -= seconds }
    }
}
