import DataAPI
import Hummingbird
import JSON

/// `GET /engine/logs?environment=E&after=N&limit=N` (master key): an environment's recent
/// function and hook log lines, oldest first; `after` (a line's `sequence`) returns only newer
/// ones, which is how `functionhost logs --follow` asks again.
struct LogRoutes: Sendable {
    let logs: FunctionLogs

    /// What a caller without the master key is answered: the routes stand in a master-only group.
    static let refusal = HostError(status: .unauthorized, code: 401, message: "Reading logs needs the master key.")

    /// Adds the routes to a master-only group (`MasterOnlyMiddleware(refusal: Self.refusal)`).
    func register(on group: RouterGroup<HostRequestContext>) {
        group.get("engine/logs") { request, _ in
            let parameters = request.queryParameters
            let environment = parameters["environment"] ?? "production"
            guard EnvironmentName(rawValue: environment) != nil else {
                throw HostError(status: .badRequest, code: 107, message: "environment must be production or staging, not '\(environment)'.")
            }
            let after = try Self.integer(parameters["after"], name: "after", range: 0...Int.max) ?? 0
            let limit = try Self.integer(parameters["limit"], name: "limit", range: 1...1000) ?? 100
            let lines = logs.lines(environment: environment, after: after, limit: limit).map { entry -> JSONValue in
                [
                    "sequence": .int(Int64(entry.sequence)), "time": .string(entry.time),
                    "level": .string(entry.level.rawValue), "environment": .string(entry.environment),
                    "source": .string(entry.source), "message": .string(entry.message),
                    "metadata": .object(entry.metadata.mapValues(JSONValue.string)),
                ]
            }
            return JSONResponse(["results": .array(lines)])
        }
    }

    private static func integer(_ text: String?, name: String, range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw HostError(status: .badRequest, code: 107, message: "\(name) must be an integer from \(range.lowerBound) to \(range.upperBound).")
        }
        return value
    }
}
