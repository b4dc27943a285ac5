import DataAPI
import Hooks
import JSON

/// The hooks an app's engine defines, run as LeanCloud's platform ran them: a POST to the
/// engine's hook URL with the hook key, the object and the user as the body
/// (`leanengine-protocol.md` § 2.2), its answer read as § 2.3 says.
enum EngineHooks {
    /// The kinds an engine can define: LeanEngine's. Find, file and LiveQuery hooks are this
    /// host's own.
    static let kinds: [HookKind] = [
        .beforeSave, .afterSave, .beforeUpdate, .afterUpdate, .beforeDelete, .afterDelete, .onLogin, .onVerified, .onAuthData,
    ]

    /// The hook a metadatas name stands for (`__before_save_for_Todo`, `__on_verified_sms`,
    /// `__on_login__User`); nil for a name this host doesn't fire.
    static func hook(named name: String) -> (kind: HookKind, className: String)? {
        switch name {
        case "__on_login__User": return (.onLogin, "_User")
        case "__on_authdata__User": return (.onAuthData, "_User")
        case "__on_verified_sms": return (.onVerified, "sms")
        case "__on_verified_email": return (.onVerified, "email")
        default: break
        }
        for kind in kinds where ![.onLogin, .onAuthData, .onVerified].contains(kind) {
            let prefix = kind.functionName(for: "")
            guard name.hasPrefix(prefix), name.count > prefix.count else { continue }
            let className = String(name.dropFirst(prefix.count))
            guard Names.isValidClassName(className) else { return nil }
            return (kind, className)
        }
        return nil
    }

    /// Registers the engine's hook of `kind` on `className`.
    static func register(_ kind: HookKind, _ className: String, of engine: EngineApp, into registry: inout HookRegistry) {
        let path = "/1.1/functions/" + self.path(kind, className)
        // The exchange ends at the hook's deadline itself.
        registry.define(kind, className, keepsDeadline: true) { request in
            let headers = [
                ("X-LC-Id", engine.keys.appId), ("X-LC-Key", engine.keys.appKey), ("X-LC-Prod", engine.production),
                ("X-LC-Hook-Key", engine.keys.hookKey),
            ]
            let answer: JSONValue
            do throws(EngineError) {
                answer = try await engine.call(path, headers: headers, body: body(of: request), deadline: request.deadline, isHook: true)
            } catch {
                throw failure(error, kind, className)
            }
            apply(answer, to: &request)
        }
    }

    /// The hook's URL below `/1.1/functions/`: `Todo/beforeSave`, `onVerified/sms`, `_User/onLogin`.
    static func path(_ kind: HookKind, _ className: String) -> String {
        kind == .onVerified ? "onVerified/\(className)" : "\(className)/\(kind.rawValue)"
    }

    /// The body LeanCloud's platform sent: `{"object", "user"}` for class hooks (an update's
    /// keys in `object._updatedKeys`), `{"object": user}` for the user hooks, `{"authData"}`.
    static func body(of request: HookRequest) -> JSONValue {
        switch request.kind {
        case .onAuthData:
            return ["authData": request.object["authData"] ?? .object([:])]
        case .onLogin, .onVerified:
            return ["object": .object(request.object)]
        default:
            var object = request.object
            if request.kind == .beforeUpdate || request.kind == .afterUpdate {
                object["_updatedKeys"] = .array(request.updatedKeys.map(JSONValue.string))
            }
            return ["object": .object(object), "user": request.user ?? .null]
        }
    }

    /// Takes back what the engine answered: a `beforeSave`'s object (what is written), an
    /// `onAuthData`'s authData. A `beforeUpdate`'s object is not taken: LeanCloud never applied
    /// its changes ("modifications made to the object are not saved"), and an app written for
    /// it doesn't expect them to be.
    static func apply(_ answer: JSONValue, to request: inout HookRequest) {
        switch request.kind {
        case .beforeSave:
            guard case .object(var object) = answer else { return }
            // The SDKs hand back their loop guards and their own view of the keys the host owns.
            for key in ["__before", "__after", "__ignore_hooks", "_updatedKeys", "__type", "className"] { object[key] = nil }
            for key in ["objectId", "createdAt", "updatedAt"] { object[key] = request.object[key] }
            request.object = object
        case .onAuthData:
            if case .object? = answer["result"] { request.object["authData"] = answer["result"] }
        default:
            return
        }
    }

    /// What stops the operation when the engine gives no answer: its refusal in LeanCloud's
    /// words (142, with the engine's message as the detail, as the platform wrapped it), a
    /// timeout (141), or the engine being down, which refuses the write (503) rather than let
    /// it through unchecked.
    static func failure(_ error: EngineError, _ kind: HookKind, _ className: String) -> HookError {
        switch error {
        case .refused(let status, _, let message):
            return HookError.rejected(message, crashed: status >= 500)
        case .timedOut:
            return HookError.timedOut(kind, className)
        case .unreachable, .badAnswer:
            var failure = HookError.rejected("The \(kind.rawValue) hook of \(className) could not run: \(error.description).", crashed: true)
            failure.requestedStatus = 503
            return failure
        }
    }
}
