import CallSupport
import DataAPI
import Hooks
import HTTPTypes
import JSON
import Logging
import Sandbox

/// One call of JavaScript cloud code, a function's or a hook's: the same steps for both (the
/// host the script reaches, the call in the sandbox under the deadline's CPU budget, the
/// console lines logged, the failure mapped), only the answer to a failure differs (HTTP's for
/// a function, the hook dispatcher's for a hook).
struct JavaScriptCall {
    /// What is called: a function (answering over HTTP) or a hook (answering the data service).
    enum Target {
        /// A function, through `/functions` (`rpc` false) or `/call` (`rpc` true).
        case function(rpc: Bool)
        /// A hook of this kind and class.
        case hook(HookKind, className: String)
    }

    /// The code and the name of the function in it (a hook's is LeanEngine's `__before_save_for_Todo`).
    let code: CloudCode
    let name: String
    let target: Target

    /// How a call's values cross the sandbox's boundary.
    private var mode: CloudCode.Mode {
        switch target {
        case .function(let rpc): rpc ? .rpc : .function
        // What a before-hook leaves (an `afterFind`'s results too) is read back; an
        // after-hook's is not, so its script doesn't encode and send it.
        case .hook(let kind, _): kind.isBefore || kind == .afterFind ? .hook : .hookWithoutAnswer
        }
    }

    /// Runs the call: `request` is what the script receives (functions: `{params, sessionToken,
    /// meta, currentUser}`; hooks: the event), answered within `deadline`; what it started and
    /// didn't await may run `backgroundTime` longer.
    ///
    /// - Parameters:
    ///   - data: who the script's host calls derive theirs from, and the service they go through.
    ///   - codeEnvironment: the environment whose code runs (its hooks are the ones it may skip).
    ///   - run: `AV.Cloud.run` of a Swift function: name, parameters, session token (nil: as the
    ///     call's own caller).
    ///   - client: who the call counts against for the workers' per-client share.
    ///   - searchLinks: where the script's search results link to (nil: no links, as in hooks).
    ///   - queue: the Cloud Queue of `AV.Cloud.enqueue` (nil: refused, 108).
    /// - Throws: for a function, `HostError` or `CloudError` (the status and code it answers with);
    ///   for a hook, `HookError`.
    func run(
        _ request: JSONValue, data: DataClient, codeEnvironment: EnvironmentName, deadline: ContinuousClock.Instant,
        backgroundTime: Duration, run: @escaping @Sendable (String, JSONValue, String?) async throws -> JSONValue,
        outbound: @escaping ScriptHost.Outbound, client: String?, searchLinks: SearchLinkSource? = nil,
        queue: TaskQueueClient? = nil, logger: TaggedLogger
    ) async throws -> JSONValue {
        let host = ScriptHost(
            service: data.service, caller: data.caller, codeEnvironment: codeEnvironment,
            // What the call started and didn't await may run on after its answer; the sandbox
            // ends it within this bound (cancelling its host calls).
            deadline: deadline + backgroundTime, run: run, outbound: outbound, searchLinks: searchLinks, queue: queue)
        let outcome: CloudCode.Outcome
        do {
            outcome = try await code.call(
                name, request: request, mode: mode, host: host, cpuLimit: Self.cpuBudget(until: deadline),
                deadline: deadline, client: client)
        } catch {
            throw failure(error)
        }
        Self.log(outcome, to: logger)
        switch outcome.result {
        case .success(let value): return value
        case .failure(let thrown): throw failure(thrown)
        }
    }

    /// The sandbox couldn't give an answer: no worker, past the deadline, out of memory, a crash.
    private func failure(_ error: ScriptError) -> any Error {
        switch target {
        case .function:
            switch error.kind {
            case .busy: HostError(status: .tooManyRequests, code: 429, message: error.message)
            case .timeout: HostError(status: .serviceUnavailable, code: 124, message: "The request timed out on the server.")
            case .memoryLimit, .exception:
                HostError(status: .internalServerError, code: 141, message: "Cloud function '\(name)' failed: \(error)")
            }
        case .hook(let kind, let className):
            switch error.kind {
            case .timeout: HookError.timedOut(kind, className)
            // Each hook has its share of the workers, as each function has.
            case .busy: HookError(code: 429, message: error.message, status: 429)
            case .memoryLimit, .exception: HookError.rejected(error.description, crashed: true)
            }
        }
    }

    /// The script threw: an error it meant for its caller (`AV.Cloud.Error`, a string, a coded
    /// error), or a crash of the code.
    private func failure(_ thrown: CloudCode.ThrownError) -> any Error {
        switch target {
        case .function:
            guard thrown.isUserError else { return HostError(status: .internalServerError, code: 141, message: thrown.message) }
            return CloudError(code: thrown.code, message: thrown.message, status: HTTPResponse.Status(code: thrown.status))
        case .hook:
            // A code of the hook's own choosing reaches the client as is.
            guard thrown.isUserError, thrown.code != 1 else { return HookError.rejected(thrown.message, crashed: !thrown.isUserError) }
            return HookError(code: thrown.code, message: thrown.message, status: thrown.status)
        }
    }

    /// Logs a call's console lines: those up to its answer now, those its background work logs
    /// once that work has ended. The tags are laid on only for a call that logged.
    static func log(_ outcome: CloudCode.Outcome, to tagged: TaggedLogger) {
        write(outcome.logs, to: tagged)
        outcome.background?.whenEnded { lines in write(lines, to: tagged) }
    }

    private static func write(_ lines: [(level: String, message: String)], to tagged: TaggedLogger) {
        guard !lines.isEmpty else { return }
        let logger = tagged.logger
        for line in lines { logger.log(level: Logger.Level(rawValue: line.level) ?? .info, "\(line.message)") }
    }

    /// Who a call counts against for its client's share of the workers: its signed-in user,
    /// else its address; nil when neither is known.
    static func client(user: JSONValue?, address: String?) -> String? {
        if let id = user?["objectId"]?.stringValue { return "user:" + id }
        // Keyed as the other per-client limits are: an IPv6 client is its /64.
        return address.map { "address:" + SendLimits.client(ofAddress: $0) }
    }

    /// The CPU seconds a call may use before its deadline. JavaScriptCore overshoots its limit
    /// by up to half: two thirds of the time left keeps the real stop inside it.
    static func cpuBudget(until deadline: ContinuousClock.Instant) -> Double {
        let budget = deadline - .now
        let seconds = Double(budget.components.seconds) + Double(budget.components.attoseconds) / 1e18
        return max(0.05, seconds * 2 / 3)
    }
}
