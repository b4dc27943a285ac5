import DataAPI
import Sandbox

/// What a JavaScript invocation reaches through `__fhCall`: the data API, the host's other
/// functions, and (when allowed) outbound HTTP; all on behalf of the request being served.
struct ScriptHost: SandboxHost {
    /// Outbound HTTP for `fetch` and `AV.Cloud.httpRequest`.
    typealias Outbound = @Sendable (JSONValue, ContinuousClock.Instant) async throws(HostCallError) -> JSONValue

    /// The service every data call goes through (with hooks).
    let service: DataService
    /// Who data calls act for unless their options say otherwise: the request's environment,
    /// user and hook depth, without the master key.
    let caller: Caller
    /// When the invocation must have answered.
    let deadline: ContinuousClock.Instant
    /// Calls another function of the host (`AV.Cloud.run` of a Swift function).
    let run: @Sendable (String, JSONValue) async throws -> JSONValue
    /// Outbound HTTP under the environment's allow-list.
    let outbound: Outbound

    func perform(_ operation: String, arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        // A call the script makes after its deadline would outlive the answer it serves.
        guard ContinuousClock.now < deadline else {
            throw HostCallError(code: 124, message: "The request timed out on the server.")
        }
        switch operation {
        case _ where operation.hasPrefix("data."):
            // The sandbox's own task doesn't carry the request's environment: it is set again here.
            let caller = caller(for: arguments)
            do {
                return try await EnvironmentStorage.$environment.withValue(caller.environment) {
                    try await ScriptDataOperations(service: service).perform(operation, arguments: arguments, caller: caller)
                }
            } catch let error as HostCallError {
                throw error
            } catch {
                throw HostCallError(code: 1, message: String(describing: error))
            }
        case "cloud.run":
            return try await runFunction(arguments)
        case "http.request":
            return try await outbound(arguments, deadline)
        default:
            throw HostCallError(code: 1, message: "Unknown operation '\(operation)'.")
        }
    }

    /// The caller of one data call: `useMasterKey` as the script asked (LeanEngine's
    /// `{useMasterKey: true}` or `AV.Cloud.useMasterKey()`), and the hooks its `__ignore_hooks`
    /// names skipped (the SDK's `disableBeforeHook()`; the object a hook was given carries it,
    /// so saving it again runs none of its class's hooks). Scripts are the app's own server
    /// code, so they may skip hooks without the master key.
    private func caller(for arguments: JSONValue) -> Caller {
        var caller = caller
        caller.isMaster = arguments["options"]?["useMasterKey"]?.boolValue ?? false
        for name in arguments["data"]?["__ignore_hooks"]?.arrayValue ?? [] {
            if let kind = name.stringValue.flatMap(HookKind.init(rawValue:)) { caller.skippedHooks.insert(kind) }
        }
        return caller
    }

    /// `AV.Cloud.run` of a function the script doesn't define itself (a Swift one).
    private func runFunction(_ arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        guard let name = arguments["name"]?.stringValue else {
            throw HostCallError(code: 1, message: "AV.Cloud.run needs a function name.")
        }
        do {
            return try await run(name, arguments["params"] ?? .object([:]))
        } catch {
            // The same code and message the function would answer over HTTP.
            let mapped = HostError(mapping: error)
            throw HostCallError(code: mapped?.code ?? 141, message: mapped?.message ?? "Cloud function '\(name)' failed.")
        }
    }
}
