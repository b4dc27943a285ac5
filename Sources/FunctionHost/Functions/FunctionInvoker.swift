import CallSupport
import DataAPI
import Foundation
import Hooks
import Hummingbird
import JSON
import Logging

/// One call of a cloud function, the same steps whoever makes it: a client through
/// `/functions/{name}` (`FunctionRoutes`) or the host itself for a Cloud Queue task or a timer.
/// The function finds the same request (`FunctionRequest`), acts as its caller
/// (`Caller.forSwiftCode`), its writes run the same hooks under the same `Access` rules, and the
/// call is counted, logged and bounded by its deadline the same way.
///
/// A class: every call's route holds it, and copying a struct of ten references cost each call as
/// many reference-count operations on objects all cores share.
final class FunctionInvoker: Sendable {
    /// What each environment runs.
    let environments: Environments
    /// The hooked data service the function's data calls go through.
    let data: DataService
    /// Where each call's duration and outcome are counted.
    let metrics: HostMetrics
    /// Where the functions' log lines are kept for `functionhost logs`.
    let logs: FunctionLogs
    /// Ends Swift functions that run past their deadline.
    let deadlines = DeadlineWatch()
    /// What a script's search results link with: the configured public URL and the app's
    /// scheme; a client's call adds the address its connection reached.
    let searchLinks: SearchLinkSource
    /// Whether staging shares production's data: then a user's staging call writes under
    /// production's hooks, as `AuthMiddleware` decides for a client's request.
    let stagingSharesData: Bool
    /// The Cloud Queue the called functions enqueue into (`request.queue`, `AV.Cloud.enqueue`):
    /// the one the environments' hooks reach too.
    var queue: QueueReference { environments.settings.queue }

    /// Creates the invoker of `environments`' functions, their data calls going through `data`.
    init(
        environments: Environments, data: DataService, metrics: HostMetrics, logs: FunctionLogs,
        searchLinks: SearchLinkSource, stagingSharesData: Bool
    ) {
        self.environments = environments
        self.data = data
        self.metrics = metrics
        self.logs = logs
        self.searchLinks = searchLinks
        self.stagingSharesData = stagingSharesData
    }

    /// A function as an environment's code holds it at the moment the call starts: a deploy
    /// during the call doesn't change it.
    struct Target: Sendable {
        let name: String
        let environment: EnvironmentName
        let live: Environments.Live
        let entry: FunctionRegistry.Entry
    }

    /// What one call is made with.
    struct Call: Sendable {
        var params: JSONValue
        /// Who calls; the function's data calls act as its `forSwiftCode` with `currentUser`.
        var caller: Caller
        var sessionToken: String?
        /// The user the function is given (`request.currentUser`), also the one its data calls act for.
        var currentUser: JSONValue?
        var isRPC = false
        var remoteAddress: String? = nil
        /// This call's time limit in place of the function's own (a task's, bounded by the queue).
        var timeout: Duration? = nil
        /// Metadata every log line of the call carries besides function, environment and version.
        var tags: Logger.Metadata = [:]
        var logger: Logger
        var searchLinks: SearchLinkSource? = nil
    }

    /// Who a call the host makes itself (a task, a timer's firing) acts as.
    enum Identity: Sendable, Hashable {
        /// The master key, as LeanEngine's queue calls with it.
        case master
        /// The user with this objectId, fetched when the call starts, exactly as a call carrying
        /// that user's session would act.
        case user(id: String)
    }

    /// The function `name` of an environment's code now. 404 code 1 when there is none; 401 for
    /// an internal function (`internal: true`) unless `mayCallInternal` (the master key, the
    /// hook key, the host's own queue).
    func target(_ name: String, in environment: EnvironmentName, mayCallInternal: Bool) throws -> Target {
        let live = environments.current(environment)
        guard let entry = live.registry.entries[name] else {
            throw HostError(status: .notFound, code: 1, message: "No such cloud function '\(name)'.")
        }
        guard !entry.options.isInternal || mayCallInternal else {
            throw HostError(status: .unauthorized, code: 401, message: "Internal cloud function '\(name)'.")
        }
        return Target(name: name, environment: environment, live: live, entry: entry)
    }

    /// Runs the call and answers its result, or throws what its caller is answered: the
    /// function's own error (`CloudError`, `DataAPIError`, a hook's), 503 code 124 past the
    /// deadline, 500 code 141 for a crash.
    func invoke(_ target: Target, _ call: Call) async throws -> JSONValue {
        let (name, environment) = (target.name, target.environment)
        var tags: Logger.Metadata = ["function": .string(name), "environment": .string(environment.rawValue)]
        if let version = target.live.version { tags["version"] = .stringConvertible(version) }
        tags.merge(call.tags) { _, extra in extra }
        // Functions act as their caller (`Caller.forSwiftCode`; the user the function was given,
        // which a text/plain body's token may name), and their writes run the hooks the caller's
        // own writes would: a client's staging call on shared data writes under production's hooks.
        var dataCaller = call.caller.forSwiftCode
        dataCaller.user = call.currentUser
        let request = FunctionRequest(
            params: call.params, sessionToken: call.sessionToken, currentUser: call.currentUser, isRPC: call.isRPC,
            remoteAddress: call.remoteAddress, isMaster: call.caller.isMaster,
            environment: environment, variables: target.live.variables,
            taggedLogger: TaggedLogger(call.logger.recording(into: logs), tags: tags),
            deadline: .now + (call.timeout ?? target.entry.options.timeout),
            data: DataClient(service: data, caller: dataCaller),
            queue: TaskQueueClient(queue: queue.value, environment: environment),
            functions: target.live.registry, searchLinks: call.searchLinks)
        let start = ContinuousClock.now
        let result: JSONValue
        do {
            result = try await run(target.entry, request, name: name)
        } catch {
            metrics.recordFunction(
                name: name, environment: environment.rawValue, outcome: Self.outcome(of: error), duration: start.duration(to: .now))
            throw error
        }
        metrics.recordFunction(name: name, environment: environment.rawValue, outcome: "ok", duration: start.duration(to: .now))
        return result
    }

    /// A call the host makes itself: as the master or as a user fetched by id, within `timeout`
    /// (nil: the function's own), each log line tagged with `tags`; internal functions too
    /// unless `mayCallInternal` is false (LeanEngine's queue calls with the hook key; the
    /// console calling as a user calls as that user's own request would). Answers how it ended
    /// and the function's log lines of this call (at most `CallLogCapture.lineLimit`).
    func invoke(
        _ name: String, params: JSONValue, environment: EnvironmentName, as identity: Identity, timeout: Duration?,
        mayCallInternal: Bool = true, tags: Logger.Metadata, logger: Logger
    ) async -> (result: Result<JSONValue, any Error>, logs: [String]) {
        let capture = CallLogCapture()
        do {
            let target = try target(name, in: environment, mayCallInternal: mayCallInternal)
            var call = Call(
                params: params, caller: Caller(isMaster: true), sessionToken: nil, currentUser: nil, timeout: timeout, tags: tags,
                logger: logger.capturing(into: capture),
                searchLinks: searchLinks.publicURL == nil ? nil : searchLinks)
            switch identity {
            case .master:
                // The master key's caller in the code's environment, as `AuthMiddleware` builds
                // one for a master-key request: never the host's own (`Caller.master`), which
                // reaches the deploy classes.
                call.caller.environment = environment
            case .user(let id):
                let (caller, token, user) = try await userCaller(id, environment: environment)
                (call.caller, call.sessionToken, call.currentUser) = (caller, token, user)
            }
            let result = try await invoke(target, call)
            return (.success(result), capture.close())
        } catch {
            return (.failure(error), capture.close())
        }
    }

    /// A client's caller acting as the user, as `AuthMiddleware` builds one for that user's
    /// request: no master key, the user's REST JSON, and on shared data production's hooks. 211
    /// when no user has this id any more.
    ///
    /// Without the user's session token: the task's code acts as the user through its caller,
    /// and a live token handed to it would let code (staging's among it) sign in as any user it
    /// names, for as long as the token lives.
    private func userCaller(_ id: String, environment: EnvironmentName) async throws
        -> (caller: Caller, sessionToken: String?, user: JSONValue)
    {
        var caller = Caller(isMaster: false)
        if environment == .staging, !stagingSharesData { caller.environment = .staging }
        let storage = data.engines.engine(for: caller.environment)
        guard !id.isEmpty, try await storage.classExists("_User"), let stored = try await storage.fetch("_User", id: id) else {
            throw HostError(status: .unauthorized, code: 211, message: "Could not find user.")
        }
        var user = stored.restJSON()
        user["sessionToken"] = nil
        caller.user = .object(user)
        return (caller, nil, .object(user))
    }

    /// Runs the function against its wall-clock deadline: past it the caller gets 503, code 124.
    private func run(_ entry: FunctionRegistry.Entry, _ request: consuming FunctionRequest, name: String) async throws
        -> JSONValue
    {
        // Moved into one box the deadline's task shares: captured as it is, the request (twenty
        // references) was copied into the task's closure.
        let held = HeldRequest(request)
        do {
            if entry.options.keepsDeadline { return try await entry.handler(held.request) }
            guard let result = try await deadlines.run(until: held.request.deadline, { try await entry.handler(held.request) }) else {
                throw HostError(status: .serviceUnavailable, code: 124, message: "The request timed out on the server.")
            }
            return result
        } catch let error as HostError {
            throw error
        } catch let error as CloudError {
            throw error
        } catch let error as DataAPIError {
            throw error
        } catch {
            held.request.logger.error("Cloud function failed: \(String(describing: error))")
            throw HostError(status: .internalServerError, code: 141, message: "Cloud function '\(name)' failed: \(error)")
        }
    }

    /// How a call ended, for metrics: `timeout`, `failure` (the code crashed) or `error` (it
    /// answered its caller with an error, as functions do).
    private static func outcome(of error: any Error) -> String {
        guard let error = error as? HostError else { return "error" }
        if error.code == 124 { return "timeout" }
        return error.status.code >= 500 ? "failure" : "error"
    }
}

/// A function's request held by reference, for the task that runs it under its deadline.
private final class HeldRequest: Sendable {
    let request: FunctionRequest
    init(_ request: consuming FunctionRequest) { self.request = request }
}
