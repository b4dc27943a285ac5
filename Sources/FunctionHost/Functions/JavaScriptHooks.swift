import DataAPI
import Hooks
import JSON
import Logging
import Sandbox

/// Adapts the hooks JavaScript code defines (`AV.Cloud.beforeSave('Todo', fn)`) into the
/// Hooks registry: each becomes a handler that calls the script with the request's object and
/// takes back the object, context or results the script left.
enum JavaScriptHooks {
    /// Registers one hook the code defines (`onVerified`'s class is its channel, `sms` or
    /// `email`; `onLogin`'s and `onAuthData`'s is `_User`).
    static func register(
        _ hook: CloudCode.Hook, named name: String, of code: CloudCode, into registry: inout HookRegistry,
        outbound: @escaping @Sendable (EnvironmentName) -> ScriptHost.Outbound, backgroundTime: Duration, logger: Logger
    ) {
        guard let kind = HookKind(rawValue: hook.kind) else { return }
        guard !registry.contains(kind, hook.className) else {
            logger.error("The \(hook.kind) hook of \(hook.className) is defined in Swift and in JavaScript; the Swift one is kept.")
            return
        }
        // The sandbox ends the call at its deadline itself: no timer race is needed.
        registry.define(kind, hook.className, keepsDeadline: true) { request in
            try await call(code, name, &request, outbound: outbound(request.environment), backgroundTime: backgroundTime)
        }
    }

    private static func call(
        _ code: CloudCode, _ name: String, _ request: inout HookRequest, outbound: @escaping ScriptHost.Outbound,
        backgroundTime: Duration
    ) async throws {
        let payload: JSONValue = [
            "kind": .string(request.kind.rawValue), "className": .string(request.className),
            "object": .object(request.object), "original": request.original.map { .object($0.restJSON()) } ?? .null,
            "updatedKeys": .array(request.updatedKeys.map(JSONValue.string)), "user": request.user ?? .null,
            "context": .object(request.context), "results": .array(request.results.map { .object($0.restJSON()) }),
        ]
        let host = ScriptHost(
            service: request.data.service, caller: request.data.caller, codeEnvironment: request.environment,
            // What the hook started and didn't await may run on after its answer, within this bound.
            deadline: request.deadline + backgroundTime, run: { _, _, _ in throw HookError(code: 1, message: "AV.Cloud.run of a Swift function isn't available in hooks yet.") },
            outbound: outbound)
        let outcome: CloudCode.Outcome
        do {
            outcome = try await code.call(
                name, request: payload, mode: .hook, host: host,
                cpuLimit: JavaScriptFunctions.cpuBudget(until: request.deadline), deadline: request.deadline,
                client: JavaScriptFunctions.client(user: request.user, address: nil))
        } catch {
            if error.kind == .timeout { throw HookError.timedOut(request.kind, request.className) }
            // Each hook has its share of the workers, as each function has.
            if error.kind == .busy { throw HookError(code: 429, message: error.message, status: 429) }
            throw HookError.rejected(error.description, crashed: true)
        }
        JavaScriptFunctions.log(outcome, to: request.logger)
        let answer: JSONValue
        switch outcome.result {
        case .success(let value):
            answer = value
        case .failure(let thrown) where thrown.isUserError && thrown.code != 1:
            // A code of the hook's own choosing reaches the client as is.
            throw HookError(code: thrown.code, message: thrown.message, status: thrown.status)
        case .failure(let thrown):
            throw HookError.rejected(thrown.message, crashed: !thrown.isUserError)
        }
        if case .object(let object)? = answer["object"] { request.object = object }
        if case .array(let keys)? = answer["changed"] { request.event.changedKeys = Set(keys.compactMap(\.stringValue)) }
        if case .object(let context)? = answer["context"] { request.context = context }
        if case .array(let results)? = answer["results"] {
            request.results = results.compactMap { storedObject($0, className: request.className) }
        }
    }

    /// A result an `afterFind` hook handed back, as a stored object again.
    private static func storedObject(_ json: JSONValue, className: String) -> StoredObject? {
        guard case .object(var fields) = json, let id = fields.removeValue(forKey: "objectId")?.stringValue else {
            return nil
        }
        let createdAt = fields.removeValue(forKey: "createdAt")?.stringValue ?? ""
        let updatedAt = fields.removeValue(forKey: "updatedAt")?.stringValue ?? createdAt
        return StoredObject(className: className, objectId: id, createdAt: createdAt, updatedAt: updatedAt, fields: fields)
    }
}
