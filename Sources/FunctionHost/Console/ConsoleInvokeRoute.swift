import DataAPI
import Hummingbird
import JSON

/// `POST /console/api/invoke` `{"function", "params"?, "environment"?, "user"?}`: the console's
/// form to try a function. It runs in the environment named (production unless `staging`), as
/// the master key or, given a user's objectId, as that user: the host builds that user's caller
/// for this one call (`FunctionInvoker.Identity.user`), so no session token is made, and none
/// reaches the page. Answers `{"result"}` or `{"error": {"code", "error", "status"}}`, with the
/// call's own log lines (`logs`) either way: a function that fails is the call's outcome, shown
/// as such; only a malformed request is refused.
struct ConsoleInvokeRoute: Sendable {
    let invoker: FunctionInvoker
    /// Each function's rate, as a client's call takes it.
    let limiter: RateLimiter

    /// The longest function name accepted (a registry's names are far shorter).
    static let maxNameLength = 128

    /// Adds the route to the console's session group.
    func register(on group: RouterGroup<HostRequestContext>) {
        group.post("invoke") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            let (name, environment, identity) = try Self.parse(body)
            try limiter.admit(function: name)
            // As a user, as that user's own call would be: an internal function is refused.
            let (outcome, logs) = await invoker.invoke(
                name, params: body["params"] ?? .object([:]), environment: environment, as: identity, timeout: nil,
                mayCallInternal: identity == .master, tags: ["console": "invoke"], logger: context.logger)
            var answer: [String: JSONValue] = [
                "environment": .string(environment.rawValue), "logs": .array(logs.map(JSONValue.string)),
            ]
            switch outcome {
            case .success(let result):
                answer["result"] = result
            case .failure(let error):
                // What a client's call would have been answered; an unexpected error keeps its details in the log.
                let mapped = HostError(mapping: error) ?? HostError(status: .internalServerError, code: 1, message: "The function failed on the server.")
                answer["error"] = ["code": .int(Int64(mapped.code)), "error": .string(mapped.message), "status": .int(Int64(mapped.status.code))]
            }
            return ConsoleRoutes.answer(.object(answer))
        }
    }

    /// The function, environment and identity a body names; 107 for anything malformed.
    static func parse(_ body: [String: JSONValue]) throws -> (String, EnvironmentName, FunctionInvoker.Identity) {
        guard let name = body["function"]?.stringValue, !name.isEmpty, name.utf8.count <= maxNameLength else {
            throw Self.badRequest("function must be a function's name of 1 to \(maxNameLength) bytes.")
        }
        let named = body["environment"] ?? .null
        guard let environment = named == .null ? .production : named.stringValue.flatMap(EnvironmentName.init(rawValue:)) else {
            throw Self.badRequest("environment must be production or staging.")
        }
        switch body["params"] {
        case nil, .null?, .object?: break
        default: throw Self.badRequest("params must be a JSON object.")
        }
        switch body["user"] {
        case nil, .null?:
            return (name, environment, .master)
        case .string(let id)? where id.isEmpty:
            return (name, environment, .master)
        case .string(let id)? where Self.isObjectID(id):
            return (name, environment, .user(id: id))
        default:
            throw Self.badRequest("user must be a user's objectId (letters and digits, at most 64).")
        }
    }

    /// Whether `id` may be an objectId: what the host makes, and what imports bring, is letters and digits.
    static func isObjectID(_ id: String) -> Bool {
        id.utf8.count <= 64
            && id.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    private static func badRequest(_ message: String) -> HostError {
        HostError(status: .badRequest, code: 107, message: message)
    }
}
