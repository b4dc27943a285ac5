import DataAPI
import Hooks
import Hummingbird
import JSON
import Logging

/// Adapts what an app's engine defines into the registry, beside the in-process code: each
/// function name becomes a function that calls the engine's `/1.1/functions/{name}` (or
/// `/1.1/call/{name}` for RPC) with the caller's session, and each hook name a hook
/// (`EngineHooks`). The engine's answers are taken as in-process code's are.
enum EngineFunctions {
    /// The realtime (IM) hooks' names: this host has no IM service to fire them, and a client
    /// must not reach them as functions.
    static let realtimeHookNames: Set<String> = [
        "_messageReceived", "_receiversOffline", "_receiverOffline", "_messageSent", "_messageUpdate",
        "_conversationStart", "_conversationStarted", "_conversationAdd", "_conversationAdded", "_conversationRemove",
        "_conversationRemoved", "_conversationUpdate", "_clientOnline", "_clientOffline", "_rtmClientSign",
    ]

    /// What registering an engine's names did.
    struct Registration: Sendable {
        /// Names defined in process too: the in-process ones are kept, the engine's not run.
        var clashes: [String] = []
        /// Names this host doesn't fire (realtime hooks, Insight's), with why.
        var skipped: [(name: String, reason: String)] = []
    }

    /// Registers every name the engine listed into `registry`, leaving the names the registry
    /// already had (in-process code's) as they were. Logs nothing: callers hold a lock.
    ///
    /// - Parameter timeout: a function's deadline, as the JavaScript code's (LeanEngine's 15 s).
    static func register(
        _ names: [String], of engine: EngineApp, into registry: inout FunctionRegistry, timeout: Duration
    ) -> Registration {
        var registration = Registration()
        for name in names.sorted() {
            if realtimeHookNames.contains(name) {
                registration.skipped.append((name, "this host has no realtime messaging service to fire it"))
                continue
            }
            if name.hasPrefix("__") {
                guard let (kind, className) = EngineHooks.hook(named: name) else {
                    registration.skipped.append((name, "this host doesn't fire it"))
                    continue
                }
                guard !registry.hooks.contains(kind, className) else {
                    registration.clashes.append(name)
                    continue
                }
                EngineHooks.register(kind, className, of: engine, into: &registry.hooks)
                continue
            }
            guard !registry.contains(name) else {
                registration.clashes.append(name)
                continue
            }
            // The engine fetches the session's user itself, as LeanEngine's SDKs do; the host
            // only hands it the token. Whether a function is internal is the engine's to check,
            // from the keys the call carries.
            var options = FunctionRegistry.Options(isInternal: false, timeout: timeout, fetchesUser: false)
            // The call's HTTP exchange ends at the deadline itself.
            options.keepsDeadline = true
            registry.define(name, options: options) { request in
                try await call(name, request, on: engine)
            }
        }
        return registration
    }

    /// One call of an engine function, as LeanCloud's gateway forwarded a client's: the app key
    /// (the master key when the caller had it), the caller's session token, environment and
    /// address; the parameters as the body.
    static func call(_ name: String, _ request: FunctionRequest, on engine: EngineApp) async throws -> JSONValue {
        var headers = request.isMaster ? engine.masterHeaders : [
            ("X-LC-Id", engine.keys.appId), ("X-LC-Key", engine.keys.appKey), ("X-LC-Prod", engine.production),
        ]
        if let token = request.sessionToken, !token.isEmpty {
            // A token is printable ASCII; anything else names no session (and can't be a header).
            guard token.utf8.count <= 256, token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
                throw HostError(status: .unauthorized, code: 211, message: "Could not find user.")
            }
            headers.append(("X-LC-Session", token))
        }
        // One client's calls in flight are bounded, so it can't hold every connection to the
        // engine; the host's own calls (tasks, timers) have no address and aren't counted.
        if let client = request.remoteAddress {
            let key = SendLimits.client(ofAddress: client)
            guard engine.functionCalls.admit(key) else {
                throw HostError(
                    status: .tooManyRequests, code: 429,
                    message: "Too many calls to the app's engine at once from this client (\(EngineApp.callsPerClient)).")
            }
            defer { engine.functionCalls.release(key) }
            return try await exchange(name, request, headers: headers, on: engine)
        }
        return try await exchange(name, request, headers: headers, on: engine)
    }

    private static func exchange(
        _ name: String, _ request: FunctionRequest, headers: [(String, String)], on engine: EngineApp
    ) async throws -> JSONValue {
        var headers = headers
        if let address = request.remoteAddress { headers.append(("X-Real-IP", address)) }
        let path = (request.isRPC ? "/1.1/call/" : "/1.1/functions/") + FileURLs.percentEncoded(name)
        do throws(EngineError) {
            let answer = try await engine.call(path, headers: headers, body: request.params, deadline: request.deadline)
            // LeanEngine answers `{"result": ...}`; a function that returned nothing, `{}`.
            guard case .object(let members) = answer else { throw EngineError.badAnswer("an answer that isn't a JSON object") }
            return members["result"] ?? .object([:])
        } catch {
            request.logger.error("Cloud function '\(name)' on the app's engine: \(error.description)")
            throw failure(error)
        }
    }

    /// What a function's caller is answered when the engine gives no result: its own error as
    /// it answered it; 503 at once when it is down; 124 past the deadline.
    static func failure(_ error: EngineError) -> any Error {
        switch error {
        case .refused(let status, let code, let message):
            return CloudError(code: code, message: message, status: HTTPResponse.Status(code: status))
        case .timedOut:
            return HostError(status: .serviceUnavailable, code: 124, message: "The request timed out on the server.")
        case .unreachable(let reason):
            return HostError(status: .serviceUnavailable, code: 1, message: "The app's cloud engine is not available: \(reason).")
        case .badAnswer:
            return HostError(status: .badGateway, code: 1, message: "The app's cloud engine failed: \(error.description).")
        }
    }
}
