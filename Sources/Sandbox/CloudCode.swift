public import DataAPI
import Synchronization

/// JavaScript cloud code loaded into a pool of workers: `AV.Cloud.define`d functions, called
/// with a request and answered with JSON.
///
/// Every worker loads the same files, so any worker can serve any call; calls go to the
/// workers in turn. A file that fails to load is reported (file, line, message) and skipped.
public final class CloudCode: Sendable {
    /// A function the code defines.
    public struct Definition: Sendable, Hashable {
        /// Its name.
        public var name: String
        /// Whether it is `internal: true`.
        public var isInternal: Bool
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

    private let workers: [JSWorker]
    private let next = Atomic<Int>(0)
    /// The functions defined, with their options.
    public let definitions: [Definition]
    /// The files that failed to load.
    public let loadErrors: [(file: String, error: ScriptError)]

    /// Loads `files` (name → source) into `workerCount` workers.
    public init(files: [(name: String, source: String)], workerCount: Int = 2) async throws {
        var workers: [JSWorker] = []
        var errors: [(String, ScriptError)] = []
        var definitions: [Definition] = []
        for index in 0..<max(1, workerCount) {
            let worker = JSWorker(name: "js-worker-\(index)")
            _ = try await worker.evaluate(CloudCodeBootstrap.source, file: "bootstrap.js")
            for file in files {
                do throws(ScriptError) {
                    _ = try await worker.evaluate(file.source, file: file.name, cpuLimit: 10)
                } catch {
                    if index == 0 { errors.append((file.name, error)) }
                }
            }
            if index == 0, let text = try await worker.evaluate("__fhNames()"),
                case .array(let entries) = try JSONValue(parsing: text)
            {
                definitions = entries.compactMap { entry in
                    guard let name = entry["name"]?.stringValue else { return nil }
                    return Definition(name: name, isInternal: entry["internal"] == true)
                }
            }
            workers.append(worker)
        }
        self.workers = workers
        self.definitions = definitions
        self.loadErrors = errors
    }

    deinit {
        for worker in workers { worker.shutdown() }
    }

    /// Calls a function with a request object (`{params, sessionToken, meta, currentUser}`).
    ///
    /// - Parameter cpuLimit: CPU seconds the call may use before it is terminated.
    public func call(_ name: String, request: JSONValue, cpuLimit: Double) async throws(ScriptError) -> Outcome {
        let worker = workers[next.wrappingAdd(1, ordering: .relaxed).oldValue % workers.count]
        let invocation = "__fhInvoke(\(JSONValue.string(name).jsonString), \(JSONValue.string(request.jsonString).jsonString))"
        let text = try await worker.run { engine throws(ScriptError) -> String? in
            guard let id = try engine.evaluate(invocation, file: name, cpuLimit: cpuLimit) else { return nil }
            return try engine.evaluate("__fhTake(\(id))", file: name, cpuLimit: cpuLimit)
        }
        guard let text, let outcome = try? JSONValue(parsing: text) else {
            throw ScriptError(.exception, "The function's result could not be read.")
        }
        let logs = (outcome["logs"]?.arrayValue ?? []).map { line in
            (level: line["level"]?.stringValue ?? "info", message: line["message"]?.stringValue ?? "")
        }
        if outcome["ok"] == true {
            return Outcome(result: .success(outcome["value"] ?? .null), logs: logs)
        }
        let error = outcome["error"]
        return Outcome(
            result: .failure(
                ThrownError(
                    code: Int(error?["code"]?.intValue ?? 141), status: Int(error?["status"]?.intValue ?? 500),
                    message: error?["message"]?.stringValue ?? "Unknown error", isUserError: error?["user"] == true)),
            logs: logs)
    }
}
