import DataAPI
import Foundation
import Hooks
import Hummingbird

/// LeanEngine's platform-style hook endpoints, for a storage service that uses this host as its
/// engine: `POST /functions/{Class}/{beforeSave|afterSave|...}` with `X-LC-Hook-Key`, answered
/// in LeanEngine's shapes (the object for before-save and before-update, `{}` for
/// before-delete, `{"result":"ok"}` for after-hooks).
struct HookRoutes: Sendable {
    let data: DataService
    let hookKey: String

    /// The kinds a storage service calls over HTTP (find hooks are this host's own).
    static let kinds: Set<HookKind> = [
        .beforeSave, .afterSave, .beforeUpdate, .afterUpdate, .beforeDelete, .afterDelete, .onLogin, .onAuthData,
        .onVerified,
    ]

    /// The hook a `functions/{first}/{second}` path names, with its class: `onVerified/sms` is
    /// the `onVerified` hook of channel `sms`; `_User/onLogin` the `onLogin` hook of `_User`.
    static func hook(_ first: String, _ second: String) -> (kind: HookKind, className: String)? {
        if first == "onVerified" { return second == "sms" || second == "email" ? (.onVerified, second) : nil }
        guard let kind = HookKind(rawValue: second), kinds.contains(kind), kind != .onVerified else { return nil }
        if kind == .onLogin || kind == .onAuthData, first != "_User" { return nil }
        return (kind, first)
    }

    func register(on group: RouterGroup<HostRequestContext>) {
        group.post("functions/:name/:hook") { request, context in
            try await run(request, context: context)
        }
    }

    private func run(_ request: Request, context: HostRequestContext) async throws -> JSONResponse {
        do {
            return try await dispatch(request, context: context)
        } catch let error as HookError where error.code == 142 {
            // LeanEngine's answers: a rejection is 400 code 1 with the hook's message, a crash 500
            // code 1; the 142 wrapping belongs to the storage path a client calls.
            throw HostError(status: error.crashed ? .internalServerError : .badRequest, code: 1, message: error.detail)
        }
    }

    private func dispatch(_ request: Request, context: HostRequestContext) async throws -> JSONResponse {
        var request = request
        guard let key = request.headers[.lcHookKey], Authenticator.constantTimeEqual(key, hookKey) else {
            throw HostError(
                status: .unauthorized, code: 401,
                message: "Hook key check failed, request from \(context.remoteAddress ?? "unknown").")
        }
        // The segment shares its parameter name with `functions/:name` (one router trie).
        let first = try context.parameters.require("name")
        let name = try context.parameters.require("hook")
        guard let (kind, className) = Self.hook(first, name) else {
            throw HostError(status: .notFound, code: 1, message: "No \(name) hook of '\(first)'.")
        }
        let body = try await request.jsonObject(context: context)
        // The platform is the caller: it acts with the master key in the request's environment.
        var caller = context.caller.asServer()
        if kind == .onAuthData {
            guard case .object(let providers)? = body["authData"] else {
                throw HostError(status: .badRequest, code: 107, message: "An onAuthData call needs authData.")
            }
            try checkRegistered(kind, className, caller: caller, name: name)
            return JSONResponse(["result": .object(try await data.checkAuthData(providers, caller: caller).providers)])
        }
        guard case .object(var object)? = body["object"] else {
            throw HostError(status: .badRequest, code: 107, message: "A hook call needs an object.")
        }
        let updatedKeys = object.removeValue(forKey: "_updatedKeys")?.arrayValue?.compactMap(\.stringValue) ?? []
        object["__before"] = nil
        object["__after"] = nil
        if case .object? = body["user"] { caller.user = body["user"] }
        // The user hooks' object is the user itself (LeanEngine's request.currentUser).
        if kind == .onLogin || kind == .onVerified { caller.user = .object(object) }
        try checkRegistered(kind, className, caller: caller, name: name)
        let event = ObjectEvent(className: className, object: object, updatedKeys: updatedKeys, caller: caller)
        guard kind.isBefore else {
            guard kind != .onVerified else {
                // LeanEngine runs onVerified for its effects only: a failure is logged, never answered.
                await data.runAfter(kind, event)
                return JSONResponse(["result": "ok"])
            }
            do {
                try await data.runAfterAnswering(kind, event)
            } catch let error as HookError {
                // As LeanEngine answers a class after-hook that threw: 500 with the hook's code
                // (1 when it chose none) and its own words; the storage service logs it.
                throw HostError(status: .internalServerError, code: error.code == 142 ? 1 : error.code, message: error.detail)
            }
            return JSONResponse(["result": "ok"])
        }
        let done = try await data.runBefore(kind, event) ?? event
        if kind == .onLogin { return JSONResponse(["result": "ok"]) }
        return kind == .beforeDelete ? JSONResponse([:]) : JSONResponse(.object(done.object))
    }

    /// 404 unless the request's environment has the hook.
    private func checkRegistered(_ kind: HookKind, _ className: String, caller: Caller, name: String) throws {
        guard data.willRun(kind, className, caller: caller) else {
            throw HostError(status: .notFound, code: 1, message: "No \(name) hook of '\(className)'.")
        }
    }
}
