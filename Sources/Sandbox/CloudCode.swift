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

        /// Creates limits; the defaults keep four workers within about half a gigabyte.
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
    }

    /// What a call produced: a value, or the error the function threw, plus its console output.
    public struct Outcome: Sendable {
        /// The value, or the thrown error as `{code, status, message, user}`.
        public var result: Result<JSONValue, ThrownError>
        /// `console` lines as (level, message).
        public var logs: [(level: String, message: String)]
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

    private let runtimes: [WorkerRuntime]
    /// The workers new calls go to; the ones after them are spares.
    private let primaryCount: Int
    private let table = InvocationTable()
    private let next = Atomic<Int>(0)
    private let sweeper: Task<Void, Never>
    /// The functions defined, with their options.
    public let definitions: [Definition]
    /// The files that failed to load.
    public let loadErrors: [(file: String, error: ScriptError)]

    /// Loads `files` (name → source) into `workerCount` workers, and `spareCount` more that take
    /// new calls only while every other worker is stuck in a long-running script.
    public init(
        files: [(name: String, source: String)], workerCount: Int = 2, spareCount: Int = 0, limits: Limits = Limits()
    ) async throws {
        let table = table
        primaryCount = max(1, workerCount)
        runtimes = (0..<(primaryCount + max(0, spareCount))).map {
            WorkerRuntime(index: $0, table: table, limits: limits, files: files)
        }
        var errors: [(file: String, error: ScriptError)] = []
        for runtime in runtimes {
            let failed = try await runtime.worker.run { box in runtime.prepare(box.engine).map { ($0.file, $0.error) } }
            if runtime.index == 0 { errors = failed.map { (file: $0.0, error: $0.1) } }
        }
        let names = try await runtimes[0].worker.evaluate("__fhNames()")
        definitions = (names.flatMap { try? JSONValue(parsing: $0) }?.arrayValue ?? []).compactMap { entry in
            guard let name = entry["name"]?.stringValue else { return nil }
            var hook: Hook?
            if let kind = entry["hook"]?.stringValue, let className = entry["className"]?.stringValue {
                hook = Hook(kind: kind, className: className)
            }
            return Definition(
                name: name, isInternal: entry["internal"] == true, fetchesUser: entry["fetchUser"] != false, hook: hook)
        }
        loadErrors = errors
        // Deadlines are enforced here, not by each caller: one sweep every 20 ms ends the calls
        // past theirs, whatever their scripts are doing.
        let runtimes = runtimes
        sweeper = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(20))
                for (id, worker) in table.expire(now: .now) {
                    runtimes[worker].worker.submit { box in runtimes[worker].drop(id, box: box) }
                }
            }
        }
    }

    /// The workers the code runs on.
    public var workerCount: Int { runtimes.count }

    /// Whether a script is stuck on some worker (running past the threshold of `isStuck`).
    var isAnyWorkerStuck: Bool { runtimes.contains { $0.worker.isStuck() } }

    /// The jobs worker `index` has been given (its start-up's included).
    func jobsSubmitted(toWorker index: Int) -> Int { runtimes[index].worker.jobsSubmitted }

    /// Calls (and hooks) in flight now, running or waiting for data, HTTP or a timer.
    public var activeCalls: Int { table.count }

    /// Evaluates `source` in the first worker's context (the SDK and the code loaded), outside any
    /// call: for tools that ask the sandbox what it has.
    func evaluate(_ source: String) async throws(ScriptError) -> String? {
        try await runtimes[0].worker.evaluate(source)
    }

    deinit {
        sweeper.cancel()
        for runtime in runtimes { runtime.worker.shutdown() }
    }

    /// Calls a function with a request object (`{params, sessionToken, meta, currentUser}`).
    ///
    /// - Parameters:
    ///   - mode: how values cross: plain JSON, rpc's typed values, or a hook's object.
    ///   - host: what the script's data and HTTP calls go to during this call.
    ///   - cpuLimit: CPU seconds the call may use in all its steps.
    ///   - deadline: when the call ends with a timeout, whatever it is doing.
    public func call(
        _ name: String, request: JSONValue, mode: Mode = .function, host: any SandboxHost = NoHost(), cpuLimit: Double,
        deadline: ContinuousClock.Instant
    ) async throws(ScriptError) -> Outcome {
        let runtime = leastBusyRuntime()
        let id = table.nextID()
        let arguments: [JSEngine.Argument] = [.number(Double(id)), .string(name), .string(request.jsonString), .string(mode.rawValue)]
        let table = table
        let ending = await withCheckedContinuation { continuation in
            table.insert(
                id, worker: runtime.index, host: host, deadline: deadline, cpuSeconds: cpuLimit, continuation: continuation)
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
        return Self.outcome(outcome)
    }

    /// The worker a new call starts on: the next primary in turn when it is idle; while a script
    /// is stuck on some worker (looping until its CPU limit), an idle spare; else the least busy
    /// primary that is not stuck. A call stays on its worker for all its steps, so a stuck script
    /// must not draw the calls after it; and spares cost nothing while nothing is stuck.
    private func leastBusyRuntime() -> WorkerRuntime {
        let start = next.wrappingAdd(1, ordering: .relaxed).oldValue
        let first = runtimes[start % primaryCount]
        if first.worker.load == 0 { return first }
        let primaries = (0..<primaryCount).map { runtimes[(start + $0) % primaryCount] }
        let usable = primaries.filter { !$0.worker.isStuck() }
        // With a script stuck somewhere, an idle spare beats queueing behind a busy worker, whose
        // job may be the next one to get stuck.
        if usable.count < primaryCount, let idle = runtimes[primaryCount...].first(where: { $0.worker.load == 0 }) {
            return idle
        }
        if let least = usable.min(by: { $0.worker.load < $1.worker.load }) { return least }
        return runtimes[primaryCount...].min(by: { $0.worker.load < $1.worker.load }) ?? first
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
