import Synchronization

/// The invocations in flight, shared by the callers waiting on them, the worker threads running
/// them and the sweeper that enforces their deadlines.
///
/// An invocation answers once (the script settling, failing, or its deadline passing first) and
/// ends once. What it started and didn't await runs on after a successful answer, as its
/// background work (`BackgroundWork`): its host calls keep their gate and take their turn at
/// the pool's (`BackgroundHostCalls`), its timers fire, its
/// steps are charged to its CPU budget, and it keeps its worker's lease, until its promises
/// settle (the worker reports it quiet), it fails, or its background bound passes. Only so many
/// invocations may run on in the background (`Pool.backgroundCalls`, a function half of them);
/// past that, one ends at its answer. Ending removes the entry, closes its host-call gate (the
/// calls still waiting never run, the running ones are cancelled) and hands its worker back,
/// so later answers for it (a host call or a timer that comes back late) find nothing and are
/// dropped: they never run in the step of a call that got the worker later.
final class InvocationTable: Sendable {
    /// How an invocation answered: the outcome's JSON text, or why the script was stopped.
    typealias Ending = Result<String, ScriptError>

    /// A class, not a struct: each look-up of a struct in the dictionary copied all of it (eight
    /// references counted) to read one field. Unchecked: it is read and changed only under the
    /// table's lock, or by whoever took it out of the table (then no one else holds it).
    private final class Entry: @unchecked Sendable {
        /// The caller waiting for the answer; nil once answered (its background work runs).
        var continuation: CheckedContinuation<Ending, Never>?
        let host: any SandboxHost
        let worker: Int
        let function: String
        var deadline: ContinuousClock.Instant
        var cpuLeft: Double
        /// Its host calls: how many run at once, and their end with the invocation.
        let gate: HostCallGate
        /// Whether a step of it has run (the script holds state for it).
        var started = false
        let background: BackgroundWork
        /// Once answered, what the script says it has pending (host calls, timers) and how
        /// many lines it has logged since the answer: settled at no pending work.
        var pending = 0
        var linesSinceAnswer = 0
        /// Hands the invocation's worker back; called once, when it ends.
        let release: @Sendable () -> Void

        init(
            continuation: CheckedContinuation<Ending, Never>, host: any SandboxHost, worker: Int, function: String,
            deadline: ContinuousClock.Instant, cpuLeft: Double, gate: HostCallGate, background: BackgroundWork,
            release: @escaping @Sendable () -> Void
        ) {
            self.continuation = continuation
            self.host = host
            self.worker = worker
            self.function = function
            self.deadline = deadline
            self.cpuLeft = cpuLeft
            self.gate = gate
            self.background = background
            self.release = release
        }
    }

    /// The invocations, and apart the answered ones working on in the background (by id, their
    /// function): the questions asked at every answer and after every step ("how many work in
    /// the background?", "which of them ended?") walk those few, not every invocation.
    private struct Invocations {
        var entries: [Int: Entry] = [:]
        var answered: [Int: String] = [:]

        /// Takes an invocation out, answered or not.
        mutating func remove(_ id: Int) -> Entry? {
            answered[id] = nil
            return entries.removeValue(forKey: id)
        }

        /// Takes out the invocations that `isEnding` picks.
        mutating func remove(where isEnding: (Entry) -> Bool) -> [(id: Int, entry: Entry)] {
            let ids = entries.compactMap { isEnding($0.value) ? $0.key : nil }
            return ids.compactMap { id in remove(id).map { (id, $0) } }
        }
    }

    private let state = Mutex(Invocations())
    private let lastID = Atomic<Int>(0)
    /// How long background work may run after the answer.
    let backgroundTime: Duration
    /// Invocations whose background work may run at once; a function may have half of them.
    private let backgroundCalls: Int
    /// The pool's gate for the host calls of answered invocations (`Pool.backgroundHostCalls`).
    let backgroundHostCalls: BackgroundHostCalls

    init(backgroundTime: Duration, backgroundCalls: Int, backgroundHostCalls: Int) {
        self.backgroundTime = backgroundTime
        self.backgroundCalls = max(0, backgroundCalls)
        self.backgroundHostCalls = BackgroundHostCalls(limit: backgroundHostCalls)
    }

    /// How many invocations are in flight, answered ones still working in the background too.
    var count: Int { state.withLock { $0.entries.count } }

    /// A fresh invocation id.
    func nextID() -> Int {
        lastID.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// Registers an invocation of `function` that `worker` runs for `host` until `deadline`;
    /// `release` hands the worker back once it has ended, background work included.
    func insert(
        _ id: Int, worker: Int, function: String, host: any SandboxHost, deadline: ContinuousClock.Instant,
        cpuSeconds: Double, gate: HostCallGate, background: BackgroundWork, release: @escaping @Sendable () -> Void,
        continuation: CheckedContinuation<Ending, Never>
    ) {
        state.withLock {
            $0.entries[id] = Entry(
                continuation: continuation, host: host, worker: worker, function: function, deadline: deadline,
                cpuLeft: cpuSeconds, gate: gate, background: background, release: release)
        }
    }

    /// The script answered (`text`): wakes the caller, and keeps the invocation for its
    /// background work while there is room; a refusal is said in its log. Returns whether it
    /// was kept; if not, it has ended and the script must forget it.
    /// `pending` is what the script has pending at its answer.
    func answer(_ id: Int, _ text: String, pending: Int) -> Bool {
        let (continuation, ended) = state.withLock { state -> (CheckedContinuation<Ending, Never>?, Entry?) in
            guard let entry = state.entries[id], let continuation = entry.continuation else { return (nil, nil) }
            let function = entry.function
            let ofFunction = state.answered.values.reduce(0) { $0 + ($1 == function ? 1 : 0) }
            guard state.answered.count < backgroundCalls, ofFunction < max(1, backgroundCalls / 2) else {
                let ended = state.remove(id)
                ended?.continuation = nil
                return (continuation, ended)
            }
            entry.continuation = nil
            entry.pending = pending
            entry.deadline = .now + backgroundTime
            state.answered[id] = function
            return (continuation, nil)
        }
        continuation?.resume(returning: .success(text))
        guard let ended else { return continuation != nil }
        // Said whether or not the script has something pending at its answer: work it started
        // and didn't await may reach the host only after a microtask (an SDK save first builds
        // its request in a promise job), so a refusal the log keeps quiet about drops it unseen.
        Self.close(ended, adding: [
            ("warning", "The call's background work was stopped at its answer (what it started and didn't await, if any): \(backgroundCalls) calls' background work is running already.")
        ])
        return false
    }

    /// Ends an invocation whose step failed: its caller gets `error` if it hasn't answered;
    /// else its background work ends with `lines` (what it logged) and the error.
    func finish(_ id: Int, _ error: ScriptError, lines: [BackgroundWork.Line] = []) {
        guard let entry = state.withLock({ $0.remove(id) }) else { return }
        Self.close(entry, failing: error, adding: lines + [("error", "The call's background work failed: \(error)")])
    }

    /// Ends an answered invocation whose promises have settled, with the lines it logged.
    func quiet(_ id: Int, lines: [BackgroundWork.Line]) {
        let entry = state.withLock { state -> Entry? in
            guard state.answered[id] != nil else { return nil }
            return state.remove(id)
        }
        if let entry { Self.close(entry, adding: lines) }
    }

    /// Ends every invocation that has started on `worker` (its engine was replaced under
    /// them); those still queued will start on the new engine.
    func finishStarted(onWorker worker: Int, _ error: ScriptError) {
        let ended = state.withLock { state in state.remove { entry in entry.worker == worker && entry.started } }
        for (_, entry) in ended { Self.close(entry, failing: error, adding: [("error", "The call's background work was stopped: \(error)")]) }
    }

    /// Ends the invocations past their deadline (or their background bound) and returns their
    /// ids and workers, so the scripts' leftovers can be dropped, with the background work of
    /// those that had answered: it ends once the leftovers' lines are added.
    func expire(now: ContinuousClock.Instant) -> [(id: Int, worker: Int, background: BackgroundWork?)] {
        let expired = state.withLock { state in state.remove { entry in entry.deadline <= now } }
        return expired.map { id, entry in
            let answered = entry.continuation == nil
            entry.gate.close()
            entry.continuation?.resume(returning: .failure(ScriptError(.timeout, "The call ran past its deadline.")))
            entry.release()
            return (id, entry.worker, answered ? entry.background : nil)
        }
    }

    /// The host, deadline and host-call gate of a live invocation (answered ones working in
    /// the background included).
    func host(of id: Int) -> (host: any SandboxHost, deadline: ContinuousClock.Instant, gate: HostCallGate)? {
        state.withLock { $0.entries[id].map { ($0.host, $0.deadline, $0.gate) } }
    }

    /// The function of invocation `id` if it has answered and works on in the background (its
    /// host calls then wait their turn at `backgroundHostCalls`); nil while its caller waits,
    /// or once it has ended.
    func answeredFunction(_ id: Int) -> String? {
        state.withLock { $0.answered[id] }
    }

    /// Whether invocation `id` is live: a late answer or timer of an ended one is dropped.
    func isLive(_ id: Int) -> Bool {
        state.withLock { $0.entries[id] != nil }
    }

    /// What the script says of an answered invocation as it changes: how much it has pending,
    /// how many lines it logged since its answer.
    func note(_ id: Int, pending: Int, lines: Int) {
        state.withLock { state in
            guard state.answered[id] != nil else { return }
            state.entries[id]?.pending = pending
            state.entries[id]?.linesSinceAnswer = lines
        }
    }

    /// After a step on `worker`: ends the answered invocations there with nothing pending that
    /// logged nothing since their answer (the script drops them before its next step), and
    /// says whether settled ones with lines are left, which the script must be asked for.
    func endQuiet(onWorker worker: Int) -> Bool {
        var linesLeft = false
        let ended = state.withLock { state -> [Entry] in
            guard !state.answered.isEmpty else { return [] }
            var quiet: [Int] = []
            for id in state.answered.keys {
                guard let entry = state.entries[id], entry.worker == worker, entry.pending <= 0 else { continue }
                if entry.linesSinceAnswer > 0 { linesLeft = true } else { quiet.append(id) }
            }
            return quiet.compactMap { state.remove($0) }
        }
        for entry in ended { Self.close(entry, adding: []) }
        return linesLeft
    }

    /// Marks a step of the invocation as running and returns the CPU seconds it has left, nil
    /// once it has ended.
    func beginStep(_ id: Int) -> Double? {
        state.withLock { state in
            guard let entry = state.entries[id] else { return nil }
            entry.started = true
            return entry.cpuLeft
        }
    }

    /// Counts CPU time a step of the invocation used against its budget.
    func charge(_ id: Int, seconds: Double) {
        state.withLock { $0.entries[id]?.cpuLeft -= seconds }
    }

    /// The end of an invocation removed from the table: its gate closes, its caller (if still
    /// waiting) gets `error`, its background work ends, its worker is handed back.
    private static func close(_ entry: Entry, failing error: ScriptError? = nil, adding lines: [BackgroundWork.Line]) {
        entry.gate.close()
        if let continuation = entry.continuation {
            continuation.resume(returning: .failure(error ?? ScriptError(.exception, "The call ended without an answer.")))
            entry.background.end()
        } else {
            entry.background.end(adding: lines)
        }
        entry.release()
    }
}
