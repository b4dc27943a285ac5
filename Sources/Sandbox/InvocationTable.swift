import Synchronization

/// The invocations in flight, shared by the callers waiting on them, the worker threads running
/// them and the sweeper that enforces their deadlines.
///
/// An invocation ends exactly once, whoever gets there first: the script settling, the script
/// failing, or the deadline passing. Ending removes the entry and closes its host-call gate (the
/// calls still waiting never run, the running ones are cancelled), so later answers for it (a
/// host call or a timer that comes back late) find nothing and are dropped: they never run in
/// the step of a call that got the worker later.
///
/// One exception keeps promises shared through module state working: an invocation that
/// answered while other invocations that had started before on its worker are still live may
/// have made host calls for their code (their continuations ran in its steps). Its calls then
/// linger, within its gate and deadline, and their answers run under one of those invocations;
/// once none of them is live (the last one ended), the calls end and their answers are dropped.
final class InvocationTable: Sendable {
    /// How an invocation ended: the outcome's JSON text, or why the script was stopped.
    typealias Ending = Result<String, ScriptError>

    private struct Entry {
        var continuation: CheckedContinuation<Ending, Never>
        var host: any SandboxHost
        var worker: Int
        var deadline: ContinuousClock.Instant
        var cpuLeft: Double
        /// Its host calls: how many run at once, and their end with the invocation.
        var gate: HostCallGate
        /// When its first step ran (in the table's order of starts and ends); nil before, as the
        /// script holds no state for it yet.
        var startedAt: Int?
    }

    /// An invocation that answered while others started before it on its worker were live.
    private struct Lingering {
        var worker: Int
        var deadline: ContinuousClock.Instant
        var gate: HostCallGate
        /// When it ended: only invocations started before may receive its answers.
        var endedAt: Int
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var lingering: [Int: Lingering] = [:]
        /// Orders starts and ends.
        var clock = 0
    }

    private let state = Mutex(State())
    private let lastID = Atomic<Int>(0)

    /// How many invocations are in flight.
    var count: Int { state.withLock { $0.entries.count } }

    /// A fresh invocation id.
    func nextID() -> Int {
        lastID.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Registers an invocation that `worker` runs for `host` until `deadline`.
    func insert(
        _ id: Int, worker: Int, host: any SandboxHost, deadline: ContinuousClock.Instant, cpuSeconds: Double,
        gate: HostCallGate, continuation: CheckedContinuation<Ending, Never>
    ) {
        state.withLock {
            $0.entries[id] = Entry(
                continuation: continuation, host: host, worker: worker, deadline: deadline, cpuLeft: cpuSeconds, gate: gate)
        }
    }

    /// Ends an invocation, if it hasn't ended yet, and wakes its caller. An answer (`success`)
    /// given while invocations started before it on its worker are live lets its host calls
    /// linger for them; any other end closes its gate.
    func finish(_ id: Int, _ ending: Ending) {
        let (entry, closing) = state.withLock { state -> (Entry?, [HostCallGate]) in
            guard let entry = state.entries.removeValue(forKey: id) else { return (nil, []) }
            state.clock += 1
            // Its end may leave another's lingering calls with no invocation to answer to.
            let orphaned = Self.removeOrphans(&state).map(\.1.gate)
            guard case .success = ending, !Self.adopters(entry.worker, before: state.clock, state).isEmpty else {
                return (entry, orphaned + [entry.gate])
            }
            state.lingering[id] = Lingering(worker: entry.worker, deadline: entry.deadline, gate: entry.gate, endedAt: state.clock)
            return (entry, orphaned)
        }
        for gate in closing { gate.close() }
        entry?.continuation.resume(returning: ending)
    }

    /// Ends every invocation that has started on `worker` (its engine was replaced under
    /// them); those still queued will start on the new engine.
    func finishStarted(onWorker worker: Int, _ error: ScriptError) {
        let (ended, gates) = state.withLock { state -> ([Entry], [HostCallGate]) in
            let ids = state.entries.filter { $0.value.worker == worker && $0.value.startedAt != nil }.map(\.key)
            let lingered = state.lingering.filter { $0.value.worker == worker }.map(\.key)
            return (
                ids.compactMap { state.entries.removeValue(forKey: $0) },
                lingered.compactMap { state.lingering.removeValue(forKey: $0)?.gate }
            )
        }
        for gate in gates { gate.close() }
        for entry in ended {
            entry.gate.close()
            entry.continuation.resume(returning: .failure(error))
        }
    }

    /// Ends the invocations past their deadline (and the lingering calls of answered ones) and
    /// returns their ids and workers, so the scripts' leftovers can be dropped.
    func expire(now: ContinuousClock.Instant) -> [(id: Int, worker: Int)] {
        let (expired, lingered) = state.withLock { state in
            let ids = state.entries.filter { $0.value.deadline <= now }.map(\.key)
            let expired = ids.compactMap { id in state.entries.removeValue(forKey: id).map { (id, $0) } }
            let lingeredIDs = state.lingering.filter { $0.value.deadline <= now }.map(\.key)
            var lingered = lingeredIDs.compactMap { id in state.lingering.removeValue(forKey: id).map { (id, $0) } }
            if !expired.isEmpty { lingered += Self.removeOrphans(&state) }
            return (expired, lingered)
        }
        for (_, entry) in expired {
            entry.gate.close()
            entry.continuation.resume(returning: .failure(ScriptError(.timeout, "The call ran past its deadline.")))
        }
        for (_, linger) in lingered { linger.gate.close() }
        return expired.map { ($0.0, $0.1.worker) } + lingered.map { ($0.0, $0.1.worker) }
    }

    /// The host, deadline and host-call gate of a live invocation.
    func host(of id: Int) -> (host: any SandboxHost, deadline: ContinuousClock.Instant, gate: HostCallGate)? {
        state.withLock { $0.entries[id].map { ($0.host, $0.deadline, $0.gate) } }
    }

    /// The invocation a late answer or timer of invocation `id` runs under: `id` while it is
    /// live; once it answered, the live invocation on `worker` with the latest deadline among
    /// those started before it ended (code of one of them may be awaiting the answer); nil
    /// otherwise, and the answer is dropped: it never runs in a call that got the worker later.
    /// Only looks: lingering calls end when their last possible owner does (`finish`, `expire`).
    func owner(for id: Int, onWorker worker: Int) -> Int? {
        state.withLock { state in
            if state.entries[id] != nil { return id }
            guard let linger = state.lingering[id] else { return nil }
            return Self.adopters(worker, before: linger.endedAt, state).max { $0.value.deadline < $1.value.deadline }?.key
        }
    }

    /// Marks a step of the invocation as running and returns the CPU seconds it has left, nil
    /// once it has ended.
    func beginStep(_ id: Int) -> Double? {
        state.withLock { state in
            guard let entry = state.entries[id] else { return nil }
            if entry.startedAt == nil {
                state.clock += 1
                state.entries[id]?.startedAt = state.clock
            }
            return entry.cpuLeft
        }
    }

    /// Counts CPU time a step of the invocation used against its budget.
    func charge(_ id: Int, seconds: Double) {
        state.withLock { $0.entries[id]?.cpuLeft -= seconds }
    }

    private static func adopters(_ worker: Int, before time: Int, _ state: State) -> [Int: Entry] {
        state.entries.filter { $0.value.worker == worker && ($0.value.startedAt ?? .max) < time }
    }

    /// Removes the lingering calls whose invocations started before them have all ended (no
    /// live invocation may take their answers) and returns them, to close their gates. Only
    /// ending invocations shrink that set: one starting later never adopts.
    private static func removeOrphans(_ state: inout State) -> [(Int, Lingering)] {
        let ids = state.lingering.filter { adopters($0.value.worker, before: $0.value.endedAt, state).isEmpty }.map(\.key)
        return ids.compactMap { id in state.lingering.removeValue(forKey: id).map { (id, $0) } }
    }
}
