import DataAPI
import HTTPTypes
import JSON
import Sandbox

/// What a JavaScript invocation reaches through `__fhCall`: the data API, the host's other
/// functions, and (when allowed) outbound HTTP; all on behalf of the request being served.
struct ScriptHost: SandboxHost {
    /// Outbound HTTP for `fetch` and `AV.Cloud.httpRequest`.
    typealias Outbound = @Sendable (JSONValue, ContinuousClock.Instant) async throws(HostCallError) -> JSONValue

    /// The service every data call goes through (with hooks).
    let service: DataService
    /// The invocation's caller, as the request's authentication built it (one hook deeper for
    /// a hook): each data call derives its own from it (`Caller.forScriptCall`), so the
    /// environment and depth always come from the request.
    let caller: Caller
    /// The environment whose code is running. It differs from the caller's on shared data: a
    /// client's `X-LC-Prod: 0` runs staging's code under production's hooks.
    let codeEnvironment: EnvironmentName
    /// When the invocation must have ended, the background work it may leave after its answer
    /// included (the sandbox ends both sooner: the answer at the call's deadline, the
    /// background work at its bound, cancelling its host calls).
    let deadline: ContinuousClock.Instant
    /// Calls another function of the host (`AV.Cloud.run` of a Swift function): name,
    /// parameters, and the session token of the user it runs as (nil: the caller's own).
    let run: @Sendable (String, JSONValue, String?) async throws -> JSONValue
    /// Outbound HTTP under the environment's allow-list.
    let outbound: Outbound
    /// Where search results link to (`_app_url`); nil leaves the links out.
    var searchLinks: SearchLinkSource? = nil
    /// The Cloud Queue for `AV.Cloud.enqueue` and `AV.Cloud.getTaskInfo`; nil where the code
    /// can't reach it (a hook's call), which refuses both with 108.
    var queue: TaskQueueClient? = nil

    func perform(_ operation: BridgeOperation, arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        // A call the script makes after its deadline would outlive the work it serves; one whose
        // invocation ended (its task cancelled by the sandbox) has no one left to answer.
        guard ContinuousClock.now < deadline, !Task.isCancelled else {
            throw HostCallError(code: 124, message: "The request timed out on the server.")
        }
        // Every operation the bridge declares has its handler here: no default, so a new one
        // doesn't compile until it is handled.
        switch operation {
        case .dataCreate, .dataUpdate, .dataDelete, .dataFetch, .dataFind, .dataCount, .dataSearch:
            // The call's caller carries the request's environment, and with it its database.
            let caller = try await callerOfCall(arguments)
            return try await ScriptDataOperations(service: service, searchLinks: searchLinks).perform(operation, arguments: arguments, caller: caller)
        case .cloudRun:
            return try await runFunction(arguments)
        case .cloudUser:
            return try await user(arguments["sessionToken"]?.stringValue ?? "")
        case .httpRequest:
            return try await outbound(arguments, deadline)
        case .cloudEnqueue, .cloudTaskInfo:
            return try await (queue ?? TaskQueueClient(queue: nil, environment: codeEnvironment)).perform(operation, arguments: arguments)
        }
    }

    /// The caller of one data call, from that call's options alone, as LeanEngine decides it:
    /// `useMasterKey` (explicit, or the script's `AV.Cloud.useMasterKey()`, which the sandbox
    /// fills in) acts as master; else `sessionToken` (the SDK sends `{user}`'s) acts as that
    /// user; else the call acts as the app with no user. Never the invocation's own caller:
    /// a promise shared between calls makes one call's code run inside another's step, so
    /// "whose step is running" is no identity. The hooks the code chose to skip are skipped
    /// (the SDK's `ignoreHook()`/`disableBeforeHook()`, sent as the call's `ignoreHooks`; the
    /// object a hook was given carries it, so saving it again runs none of its class's hooks):
    /// scripts are the app's own server code, as LeanEngine's carry the hook key. Never the
    /// data's `__ignore_hooks`: a function that saves the params a client sent would let the
    /// client pick which validation its write skips.
    private func callerOfCall(_ arguments: JSONValue) async throws(HostCallError) -> Caller {
        let options = arguments["options"]
        let useMasterKey = options?["useMasterKey"]?.boolValue ?? false
        var user: JSONValue?
        if !useMasterKey, let token = options?["sessionToken"]?.stringValue, !token.isEmpty {
            user = try await self.user(token)
        }
        var caller = caller.forScriptCall(useMasterKey: useMasterKey, user: user)
        // Code skips only its own environment's hooks: staging's code writing production's data
        // under production's hooks can't choose which of them its writes pass.
        guard codeEnvironment == caller.environment else { return caller }
        for name in arguments["ignoreHooks"]?.arrayValue ?? [] {
            if let kind = name.stringValue.flatMap(HookKind.init(rawValue:)) { caller.skippedHooks.insert(kind) }
        }
        return caller
    }

    /// `AV.Cloud.run` of a function the script doesn't define itself (a Swift one).
    private func runFunction(_ arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        guard let name = arguments["name"]?.stringValue else {
            throw HostCallError(code: 1, message: "AV.Cloud.run needs a function name.")
        }
        let token = arguments["options"]?["sessionToken"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        do {
            return try await run(name, arguments["params"] ?? .object([:]), token)
        } catch {
            // The same code, message and status the function would answer over HTTP.
            let mapped = HostError(mapping: error)
            throw HostCallError(
                code: mapped?.code ?? 141, message: mapped?.message ?? "Cloud function '\(name)' failed.",
                status: mapped.map { Int($0.status.code) })
        }
    }

    /// The user of a session token: a data call's caller, or for `AV.Cloud.run` of a script's
    /// own function with `{sessionToken}`, that function's `request.currentUser`. 211 when no
    /// user holds it.
    private func user(_ sessionToken: String) async throws(HostCallError) -> JSONValue {
        let user: JSONValue?
        do {
            user = try await service.userJSON(forSessionToken: sessionToken, in: caller.environment)
        } catch {
            throw HostCallError(code: 1, message: String(describing: error))
        }
        guard let user else { throw HostCallError(code: 211, message: "Could not find user.") }
        return user
    }
}
