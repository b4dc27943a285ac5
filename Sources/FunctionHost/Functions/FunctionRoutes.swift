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
    /// What runs each call (the same steps a Cloud Queue task's call takes).
    let invoker: FunctionInvoker
    /// Each function's rate.
    let limiter: RateLimiter

    /// Adds the calls to `group` and the functions' list to `masterOnly`, a master-only group.
    func register(on group: RouterGroup<HostRequestContext>, masterOnly: RouterGroup<HostRequestContext>) {
        masterOnly.get("functions/_ops/metadatas") { _, context in
            let registry = invoker.environments.current(context.functionsEnvironment).registry
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
        let name = try context.parameters.require("name")
        let caller = context.caller
        // LeanEngine lets the master key and the hook key (the platform, its queue) reach internal functions.
        let target = try invoker.target(
            name, in: context.functionsEnvironment, mayCallInternal: caller.isMaster || caller.presentedHookKey)
        try limiter.admit(function: name)
        var params = try await request.jsonReadOnce(context: context) ?? .object([:])
        var sessionToken = context.sessionToken
        if case .object(var members) = params {
            // Transport fields of text/plain bodies are not parameters (LeanEngine drops `_x` keys).
            if sessionToken == nil { sessionToken = members["_SessionToken"]?.stringValue }
            for key in members.keys where key.hasPrefix("_") && !key.hasPrefix("__") { members[key] = nil }
            params = .object(members)
        }
        let user = target.entry.options.fetchesUser ? try await currentUser(sessionToken, caller: caller) : nil
        let result = try await invoker.invoke(
            target,
            .init(
                params: params, caller: caller, sessionToken: sessionToken, currentUser: user, isRPC: rpc,
                remoteAddress: context.clientAddress, logger: context.logger,
                searchLinks: invoker.searchLinks.reached(at: context.connectionLocalAddress)))
        return JSONResponse(["result": rpc ? result : Self.plain(result)])
    }

    /// The user of a session token, without its secrets; an unknown token is refused, as
    /// LeanEngine refuses it before the function runs.
    private func currentUser(_ sessionToken: String?, caller: Caller) async throws -> JSONValue? {
        guard let sessionToken else { return nil }
        // The middleware already found the header's user; a token from a text/plain body is new.
        if let known = caller.user, known["sessionToken"]?.stringValue == sessionToken { return known }
        guard let user = try await invoker.data.userJSON(forSessionToken: sessionToken, in: caller.environment) else {
            throw HostError(status: .unauthorized, code: 211, message: "Could not find user.")
        }
        return user
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
