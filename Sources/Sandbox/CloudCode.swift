public import JSON
import Synchronization

/// JavaScript cloud code loaded into a pool of workers: `AV.Cloud.define`d functions, called
/// with a request and answered with JSON.
///
/// Every worker loads the same files into its own context group, so any worker can serve any
/// call, and one `CloudCode` never sees another's globals (one per environment and version).
/// A file that fails to load is reported (file, line, message) and skipped.
public final class CloudCode: Sendable {
    /// What the code may use.
    public struct Limits: Sendable {
        /// Heap bytes a worker's VM may reach before the running script is stopped.
        public var memoryBytes: Int
        /// Bytes of JSON a call may answer with.
        public var maxResultBytes: Int
        /// `process.env` for the code.
        public var variables: [String: JSONValue]
        /// GC stress, for tests: a full collection before every step of every call, right after
        /// its arguments are made (where a value held outside the collector's sight dies).
        public var collectsGarbageBeforeEachStep = false

        /// Creates limits; one function may hold half the pool: four workers, half a gigabyte.
        public init(memoryBytes: Int = 128 << 20, maxResultBytes: Int = 8 << 20, variables: [String: JSONValue] = [:]) {
            self.memoryBytes = memoryBytes
            self.maxResultBytes = maxResultBytes
            self.variables = variables
        }
    }

    /// A function the code defines.
    public struct Definition: Sendable, Hashable {
        /// Its name.
        public var name: String
        /// Whether it is `internal: true`.
        public var isInternal: Bool
        /// Whether the caller's user is looked up (`fetchUser`, true unless set to false).
        public var fetchesUser: Bool
        /// For a hook (`AV.Cloud.beforeSave('Todo', ...)`): its kind and class.
        public var hook: Hook?
    }

    /// The kind (`beforeSave`, `onVerified`, ...) and class of a hook the code defines.
    public struct Hook: Sendable, Hashable {
        /// The kind, as the `AV.Cloud` method that registered it is named.
        public var kind: String
        /// The class (or, for `onVerified`, the verification type).
        public var className: String
    }

    /// How a call's values cross the boundary.
    public enum Mode: String, Sendable {
        /// `/functions`: plain JSON both ways.
        case function
        /// `/call`: params decoded into typed values, the result encoded with `__type`.
        case rpc
        /// A hook: the request's object arrives as an `AV.Object`; the answer is the object (and
        /// context) as the hook left them.
        case hook
        /// A hook whose answer the host doesn't read (an after-hook's: the write stands as it
        /// was): it arrives as `hook`'s does, and answers nothing back.
        case hookWithoutAnswer
    }

    /// What a call produced: a value, or the error the function threw, plus its console output.
    public struct Outcome: Sendable {
        /// The value, or the thrown error as `{code, status, message, user}`.
        public var result: Result<JSONValue, ThrownError>
        /// `console` lines as (level, message), up to the answer.
        public var logs: [(level: String, message: String)]
        /// What the call started and didn't await, running on after the answer, and the lines
        /// it logs; nil when the outcome came from nowhere that could leave any.
        public var background: BackgroundWork?
    }

    /// An error thrown by a function: `user` errors (`AV.Cloud.Error`, strings) carry the
    /// caller's status and code; others are failures of the code itself.
    public struct ThrownError: Error, Sendable, Hashable {
        /// The code for the caller.
        public var code: Int
        /// The HTTP status for the caller.
        public var status: Int
        /// The message.
        public var message: String
        /// Whether the function meant to answer with it (else it is a crash of the code).
        public var isUserError: Bool
    }

    /// How many workers the code may use and how calls share them.
    public struct Pool: Sendable, Hashable {
        /// Worker threads at most, each with its own engine, started as calls need them. Threads,
        /// not cores, are the bound: a script looping until its CPU limit holds its thread, and
        /// the others must still find one.
        public let workers: Int
        /// Workers one function may hold at once (less while other functions are busy too):
        /// half the pool, at least one. Follows `workers`, which only `init` sets.
        public var perFunction: Int { max(1, workers / 2) }
        /// Workers one client (a signed-in user, else an address) may hold of one function: a
        /// quarter of the pool, at least one.
        public var perClient: Int { max(1, workers / 4) }
        /// Calls of one function that may wait for a worker; past it, `.busy` at once.
        public let queueLength: Int
        /// How long a call may wait for a worker before it fails with `.busy`.
        public var queueWait: Duration
        /// Host calls (data, HTTP, `AV.Cloud.run`) one invocation may have running at once; the
        /// rest wait in order, and all end with the invocation (its background work included).
        /// Bounds what one call can hold of the database's connections and of Swift memory
        /// (answers sit outside the JS heap).
        public var hostCallsPerInvocation = 8
        /// Host calls one invocation may have waiting for a place among the running ones; past
        /// it, a call is refused at once (code 429). Each waiting call holds its arguments in
        /// Swift memory, so a loop saving a large object over and over can't pile them up.
        public var hostCallsWaitingPerInvocation = 1000
        /// How long what a call started and didn't await (a save it didn't return, a timer) may
        /// run on after the call answered, as LeanEngine's process lets it; past it, its host
        /// calls are cancelled and its timers dropped. Its CPU time counts against the call's.
        public var backgroundTime: Duration = .seconds(15)
        /// Calls whose background work may run at once (one function half of them, at least
        /// one); past it, a call's background work ends at its answer, with a line in its log.
        /// Background work keeps its worker's lease, so it counts against its function's share.
        public var backgroundCalls = 64
        /// Host calls the pool's background work may have running at once, all functions
        /// together (one function half of them, at least one); the rest wait in order, and end
        /// unrun with their call's background work. Calls made before the answer never wait
        /// for it: background work can't crowd out the database reads of callers who wait.
        public var backgroundHostCalls = 8

        /// Creates a pool of `workers` threads (at least one): a function may hold half of them,
        /// a client a quarter (half of its function's share).
        public init(workers: Int = 8, queueLength: Int = 64, queueWait: Duration = .seconds(5)) {
            self.workers = max(1, workers)
            self.queueLength = max(0, queueLength)
            self.queueWait = queueWait
        }
    }

    /// The workers started so far, by index (started on demand, up to the pool's size); shared
    /// with the scheduler and the sweeper.
    private final class Runtimes: Sendable {
        let all: Mutex<[WorkerRuntime]>
        init(_ first: WorkerRuntime) { all = Mutex([first]) }
        func withLock<T: Sendable>(_ body: (inout [WorkerRuntime]) -> T) -> T { all.withLock { body(&$0) } }
    }

    private let runtimes: Runtimes
    private let scheduler: WorkerScheduler
    private let table: InvocationTable
    /// Host calls one invocation may have running at once, and waiting (`Pool`).
    private let hostCallsPerInvocation: Int
    private let hostCallsWaitingPerInvocation: Int
    private let limits: Limits
    private let files: [(name: String, source: String)]
    private let sweeper: Task<Void, Never>
    /// The functions defined, with their options.
    public let definitions: [Definition]
    /// The files that failed to load.
    public let loadErrors: [(file: String, error: ScriptError)]

    /// Loads `files` (name → source) into the first worker of a pool of `workerCount`.
    public convenience init(
        files: [(name: String, source: String)], workerCount: Int, limits: Limits = Limits()
    ) async throws {
        try await self.init(files: files, pool: Pool(workers: workerCount), limits: limits)
    }

    /// Loads `files` (name → source) into the first worker; the pool's others load them when
    /// calls first need them.
    public init(files: [(name: String, source: String)], pool: Pool = Pool(), limits: Limits = Limits()) async throws {
        let table = InvocationTable(
            backgroundTime: pool.backgroundTime, backgroundCalls: pool.backgroundCalls, backgroundHostCalls: pool.backgroundHostCalls)
        self.table = table
        self.limits = limits
        self.files = files
        hostCallsPerInvocation = pool.hostCallsPerInvocation
        hostCallsWaitingPerInvocation = pool.hostCallsWaitingPerInvocation
        let first = WorkerRuntime(index: 0, table: table, limits: limits, files: files)
        let runtimes = Runtimes(first)
        self.runtimes = runtimes
        scheduler = WorkerScheduler(pool: pool) {
            runtimes.withLock { all in Set(all.indices.filter { all[$0].worker.isStuck() }) }
        }
        let failed = try await first.worker.run(loading: true) { box in first.prepare(box.engine).map { ($0.file, $0.error) } }
        // A file whose top level the watchdog stopped leaves the engine unusable (it is never
        // entered again: `JSEngine.wasStopped`), and every new worker would spend the load's
        // budget on it again: the load ends with that file's error.
        if let (file, error) = failed.first(where: { $0.1.kind == .timeout || $0.1.kind == .memoryLimit }) {
            throw ScriptError(error.kind, "\(file) did not finish loading: \(error.message)")
        }
        let names = try await first.evaluate("__fhNames()")
        definitions = (names.flatMap { try? JSONValue(parsing: $0) }?.arrayValue ?? []).compactMap { entry in
            guard let name = entry["name"]?.stringValue else { return nil }
            var hook: Hook?
            if let kind = entry["hook"]?.stringValue, let className = entry["className"]?.stringValue {
                hook = Hook(kind: kind, className: className)
            }
            return Definition(
                name: name, isInternal: entry["internal"] == true, fetchesUser: entry["fetchUser"] != false, hook: hook)
        }
        loadErrors = failed.map { (file: $0.0, error: $0.1) }
        // Deadlines are enforced here, not by each caller: one sweep every 20 ms ends the calls
        // past theirs, whatever their scripts are doing, and the waits for a worker past theirs.
        let scheduler = scheduler
        sweeper = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
                let now = ContinuousClock.now
                for (id, worker, background) in table.expire(now: now) {
                    let runtime = runtimes.withLock { $0[worker] }
                    runtime.worker.submit { box in
                        let lines = runtime.drop(id, box: box)
                        background?.end(adding: lines + [("warning", "The call's background work was stopped \(pool.backgroundTime) after its answer.")])
                    }
                }
                scheduler.sweep(now: now)
            }
        }
    }

    /// The workers started so far.
    public var workerCount: Int { runtimes.withLock { $0.count } }

    /// Workers running a step past the stuck threshold now.
    var stuckWorkers: Int { runtimes.withLock { $0.filter { $0.worker.isStuck() }.count } }

    /// Workers leased to calls of `function` now.
    func workersHeld(by function: String) -> Int { scheduler.workers(of: function) }

    /// Calls of `function` waiting for a worker.
    func callsWaiting(for function: String) -> Int { scheduler.waiting(for: function) }

    /// Calls (and hooks) in flight now, running or waiting for data, HTTP or a timer.
    public var activeCalls: Int { table.count }

    /// Host calls of background work running now and waiting for their turn (`Pool.backgroundHostCalls`).
    public var backgroundHostCalls: (running: Int, waiting: Int) {
        let counts = table.backgroundHostCalls.counts
        return (counts.running, counts.waiting)
    }

    /// Evaluates `source` in the first worker's context (the SDK and the code loaded), outside any
    /// call: for tools that ask the sandbox what it has.
    func evaluate(_ source: String) async throws(ScriptError) -> String? {
        try await runtime(0).evaluate(source)
    }

    deinit {
        sweeper.cancel()
        for runtime in runtimes.withLock({ $0 }) { runtime.worker.shutdown() }
    }

    /// Worker `index`, started (and given the code to load, its first job) if it isn't yet.
    private func runtime(_ index: Int) -> WorkerRuntime {
        runtimes.withLock { runtimes in
            while runtimes.count <= index {
                let runtime = WorkerRuntime(index: runtimes.count, table: table, limits: limits, files: files)
                // A load, not a script's step: the worker doesn't count as stuck meanwhile, so
                // calls queue behind the load rather than start more workers.
                runtime.worker.submit(loading: true) { box in _ = runtime.prepare(box.engine) }
                runtimes.append(runtime)
            }
            return runtimes[index]
        }
    }

    /// Calls a function with a request object (`{params, sessionToken, meta, currentUser}`).
    ///
    /// - Parameters:
    ///   - mode: how values cross: plain JSON, rpc's typed values, or a hook's object.
    ///   - host: what the script's data and HTTP calls go to during this call.
    ///   - cpuLimit: CPU seconds the call may use in all its steps.
    ///   - deadline: when the call ends with a timeout, whatever it is doing.
    ///   - client: who called, for the client's share of the workers (a signed-in user's id,
    ///     else an address); nil when the caller can't be told apart.
    public func call(
        _ name: String, request: JSONValue, mode: Mode = .function, host: any SandboxHost = NoHost(), cpuLimit: Double,
        deadline: ContinuousClock.Instant, client: String? = nil
    ) async throws(ScriptError) -> Outcome {
        let key = WorkerScheduler.Key(function: name, client: client)
        let index = try await scheduler.acquire(key, deadline: deadline).get()
        let runtime = self.runtime(index)
        let scheduler = scheduler
        let id = table.nextID()
        let arguments: [JSEngine.Argument] = [.number(Double(id)), .string(name), .string(request.jsonString), .string(mode.rawValue)]
        let table = table
        let gate = HostCallGate(limit: hostCallsPerInvocation, waitingLimit: hostCallsWaitingPerInvocation)
        let background = BackgroundWork()
        let ending = await withCheckedContinuation { continuation in
            // The worker is handed on once the invocation has ended, its background work
            // included, and only after the step running then has finished (a job queued behind
            // it): a call ended at its deadline may still be looping until its CPU limit.
            table.insert(
                id, worker: runtime.index, function: name, host: host, deadline: deadline, cpuSeconds: cpuLimit, gate: gate,
                background: background, release: { runtime.worker.submit { _ in scheduler.release(index, key) } },
                continuation: continuation)
            runtime.worker.submit { box in runtime.step(id, "__fhInvoke", arguments, box: box) }
        }
        let text = try ending.get()
        guard let outcome = try? JSONValue(parsing: text) else {
            throw ScriptError(.exception, "The function's result could not be read.")
        }
        // The name is decided here, once: an answer from any other function (a bridge fault, a
        // script that rewired the entry points) is refused, so an `internal` check made on
        // `name` holds for what actually ran.
        guard outcome["ran"]?.stringValue == name else {
            throw ScriptError(.exception, "The sandbox answered for '\(outcome["ran"]?.stringValue ?? "?")', not '\(name)'.")
        }
        var answer = Self.outcome(outcome)
        answer.background = background
        return answer
    }

    private static func outcome(_ outcome: JSONValue) -> Outcome {
        let logs = (outcome["logs"]?.arrayValue ?? []).map { line in
            (level: line["level"]?.stringValue ?? "info", message: line["message"]?.stringValue ?? "")
        }
        if outcome["ok"] == true {
            return Outcome(result: .success(outcome["value"] ?? .null), logs: logs)
        }
        let error = outcome["error"]
        let thrown = ThrownError(
            code: Int(error?["code"]?.intValue ?? 141), status: Int(error?["status"]?.intValue ?? 500),
            message: error?["message"]?.stringValue ?? "Unknown error", isUserError: error?["user"] == true)
        return Outcome(result: .failure(thrown), logs: logs)
    }
}
