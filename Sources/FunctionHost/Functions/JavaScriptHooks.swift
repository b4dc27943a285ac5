import CallSupport
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
    ///
    /// - Parameters:
    ///   - swiftFunctions: what the hook's `AV.Cloud.run` reaches beyond the script's own functions.
    ///   - variables: the environment's variables, the `FunctionRequest.variables` of those functions.
    ///   - queue: the Cloud Queue the hook's `AV.Cloud.enqueue` reaches (as in LeanEngine, where a
    ///     hook's code enqueues like a function's: as the master, in its own environment).
    static func register(
        _ hook: CloudCode.Hook, named name: String, of code: CloudCode, into registry: inout HookRegistry,
        outbound: @escaping @Sendable (EnvironmentName) -> ScriptHost.Outbound, backgroundTime: Duration,
        swiftFunctions: FunctionRegistry, variables: [String: String], queue: QueueReference, logger: Logger
    ) {
        guard let kind = HookKind(rawValue: hook.kind) else { return }
        guard !registry.contains(kind, hook.className) else {
            logger.error("The \(hook.kind) hook of \(hook.className) is defined in Swift and in JavaScript; the Swift one is kept.")
            return
        }
        let call = JavaScriptCall(code: code, name: name, target: .hook(kind, className: hook.className))
        // The sandbox ends the call at its deadline itself: no timer race is needed.
        registry.define(kind, hook.className, keepsDeadline: true) { request in
            let answer = try await call.run(
                payload(of: request), data: request.data, codeEnvironment: request.environment, deadline: request.deadline,
                backgroundTime: backgroundTime,
                run: runner(for: request, functions: swiftFunctions, variables: variables),
                outbound: outbound(request.environment), client: JavaScriptCall.client(user: request.user, address: nil),
                queue: TaskQueueClient(queue: queue.value, environment: request.environment), logger: request.taggedLogger)
            apply(answer, to: &request)
        }
    }

    /// What the script receives: the event, as the bootstrap turns it into the hook's request.
    private static func payload(of request: HookRequest) -> JSONValue {
        [
            "kind": .string(request.kind.rawValue), "className": .string(request.className),
            "object": .object(request.object), "original": request.original.map { .object($0.restJSON()) } ?? .null,
            "updatedKeys": .array(request.updatedKeys.map(JSONValue.string)), "user": request.user ?? .null,
            "context": .object(request.context), "results": .array(request.results.map { .object($0.restJSON()) }),
        ]
    }

    /// `AV.Cloud.run` of a Swift function from a hook: it runs as the hook's caller (its user,
    /// its session, its master key if the request carried one; its data calls one hook deeper,
    /// as the hook's own are), or as the user whose session token the code names. Nothing the
    /// client sent chooses it: the caller is the request's, built by its authentication.
    private static func runner(
        for request: HookRequest, functions: FunctionRegistry, variables: [String: String]
    ) -> @Sendable (String, JSONValue, String?) async throws -> JSONValue {
        let caller = request.data.caller
        let (data, environment, tagged, deadline) = (request.data, request.environment, request.taggedLogger, request.deadline)
        // Made when the hook runs a function, not for every hook call.
        return { name, params, sessionToken in
            let function = FunctionRequest(
                params: .object([:]), sessionToken: caller.user?["sessionToken"]?.stringValue, currentUser: caller.user,
                isRPC: false, remoteAddress: nil, isMaster: caller.isMaster, environment: environment,
                variables: variables, taggedLogger: TaggedLogger(tagged.logger, tags: [:]), deadline: deadline,
                data: data, functions: functions)
            return try await function.run(name, params: params, sessionToken: sessionToken)
        }
    }

    /// Takes back what the hook left: its object (and which keys it changed), its context, an
    /// `afterFind`'s results.
    private static func apply(_ answer: JSONValue, to request: inout HookRequest) {
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
