import CallSupport
import DataAPI
import Foundation
import Hooks
import Hummingbird
import JSON
import Logging

/// `/functions/{name}` (callFunction: plain JSON) and `/call/{name}` (rpc: typed values kept),
/// answering any method, plus `GET /functions/_ops/metadatas` (master key) listing every name.
struct FunctionRoutes: Sendable {
    /// What each environment runs.
    let environments: Environments
    let data: DataService
    /// Where each call's duration and outcome are counted.
    let metrics: HostMetrics
    /// Each function's rate.
    let limiter: RateLimiter
    /// Where the functions' log lines are kept for `functionhost logs`.
    let logs: FunctionLogs
    /// Ends Swift functions that run past their deadline.
    let deadlines = DeadlineWatch()
    /// The configured public URL and the app id, what a script's search results link with.
    var publicURL: String? = nil
    var appId = ""

    /// Adds the calls to `group` and the functions' list to `masterOnly`, a master-only group.
    func register(on group: RouterGroup<HostRequestContext>, masterOnly: RouterGroup<HostRequestContext>) {
        masterOnly.get("functions/_ops/metadatas") { _, context in
            let registry = environments.current(context.functionsEnvironment).registry
            // Hooks are listed under LeanEngine's names (`__before_save_for_Todo`).
            let names = (registry.names + registry.hooks.functionNames).sorted()
            return JSONResponse(["result": .array(names.map { .string($0) })])
        }
        for method in [HTTPRequest.Method.post, .get, .put] {
            group.on("functions/:name", method: method) { request, context in
                try await call(request, context: context, rpc: false)
            }
            group.on("call/:name", method: method) { request, context in
                try await call(request, context: context, rpc: true)
            }
        }
    }

    private func call(_ request: Request, context: HostRequestContext, rpc: Bool) async throws -> JSONResponse {
        var request = request
        let name = try context.parameters.require("name")
        // The environment's code as it is now: a deploy during the call doesn't change it.
        let live = environments.current(context.functionsEnvironment)
        let registry = live.registry
        guard let entry = registry.entries[name] else {
            throw HostError(status: .notFound, code: 1, message: "No such cloud function '\(name)'.")
        }
        let caller = context.caller
        // LeanEngine lets the master key and the hook key (the platform, its queue) reach them.
        guard !entry.options.isInternal || caller.isMaster || caller.presentedHookKey else {
            throw HostError(status: .unauthorized, code: 401, message: "Internal cloud function '\(name)'.")
        }
        try limiter.admit(function: name)
        var params = try await request.json(context: context) ?? .object([:])
        var sessionToken = context.sessionToken
        if case .object(var members) = params {
            // Transport fields of text/plain bodies are not parameters (LeanEngine drops `_x` keys).
            if sessionToken == nil { sessionToken = members["_SessionToken"]?.stringValue }
            for key in members.keys where key.hasPrefix("_") && !key.hasPrefix("__") { members[key] = nil }
            params = .object(members)
        }
        let environment = context.functionsEnvironment
        var tags: Logger.Metadata = ["function": .string(name), "environment": .string(environment.rawValue)]
        if let version = live.version { tags["version"] = .stringConvertible(version) }
        let user = entry.options.fetchesUser ? try await currentUser(sessionToken, caller: caller) : nil
        // Functions act as their caller (`Caller.forSwiftCode`; the user the function was given,
        // which a text/plain body's token may name), and their writes run the hooks the caller's
        // own writes would: a client's staging call on shared data writes under production's hooks.
        var dataCaller = caller.forSwiftCode
        dataCaller.user = user
        let functionRequest = FunctionRequest(
            params: params, sessionToken: sessionToken, currentUser: user, isRPC: rpc,
            remoteAddress: context.clientAddress, isMaster: caller.isMaster,
            environment: environment, variables: live.variables, taggedLogger: TaggedLogger(context.logger.recording(into: logs), tags: tags), deadline: .now + entry.options.timeout,
            data: DataClient(service: data, caller: dataCaller),
            functions: registry,
            searchLinks: SearchLinks(base: LinkBase.forFiles(publicURL: publicURL, context: context), appId: appId))
        let start = ContinuousClock.now
        let result: JSONValue
        do {
            result = try await run(entry, functionRequest, name: name)
        } catch {
            metrics.recordFunction(
                name: name, environment: environment.rawValue, outcome: Self.outcome(of: error), duration: start.duration(to: .now))
            throw error
        }
        metrics.recordFunction(name: name, environment: environment.rawValue, outcome: "ok", duration: start.duration(to: .now))
        return JSONResponse(["result": rpc ? result : Self.plain(result)])
    }

    /// The user of a session token, without its secrets; an unknown token is refused, as
    /// LeanEngine refuses it before the function runs.
    private func currentUser(_ sessionToken: String?, caller: Caller) async throws -> JSONValue? {
        guard let sessionToken else { return nil }
        // The middleware already found the header's user; a token from a text/plain body is new.
        if let known = caller.user, known["sessionToken"]?.stringValue == sessionToken { return known }
        guard let user = try await data.userJSON(forSessionToken: sessionToken, in: caller.environment) else {
            throw HostError(status: .unauthorized, code: 211, message: "Could not find user.")
        }
        return user
    }

    /// Runs the function against its wall-clock deadline: past it the caller gets 503, code 124.
    private func run(_ entry: FunctionRegistry.Entry, _ request: FunctionRequest, name: String) async throws
        -> JSONValue
    {
        do {
            if entry.options.keepsDeadline { return try await entry.handler(request) }
            guard let result = try await deadlines.run(until: request.deadline, { try await entry.handler(request) }) else {
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
            request.logger.error("Cloud function failed: \(String(describing: error))")
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

    /// callFunction answers plain JSON: an object value loses its `__type`/`className` tags.
    private static func plain(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(var members) where members["__type"] == "Object":
            members["__type"] = nil
            members["className"] = nil
            return .object(members.mapValues(plain))
        case .object(let members): return .object(members.mapValues(plain))
        case .array(let elements): return .array(elements.map(plain))
        default: return value
        }
    }
}
