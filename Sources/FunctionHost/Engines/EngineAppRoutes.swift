import DataAPI
import Hummingbird
import JSON

/// `POST /engine/app/reload` `{"environment"?}` (master key): asks the environment's engine
/// (both, without one) for its functions and hooks again and registers them, as a restart or a
/// deploy does. Answers each environment's names and the ones defined in process too; 503 when
/// an engine doesn't answer, 404 when the environment has none.
struct EngineAppRoutes: Sendable {
    let environments: Environments

    /// How long a reload waits for each engine.
    static let answerTime: Duration = .seconds(10)

    func register(on group: RouterGroup<HostRequestContext>) {
        group.post("engine/app/reload") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            let asked: [EnvironmentName]
            switch body["environment"] {
            case nil, .null?:
                asked = EnvironmentName.allCases.filter { environments.engine(of: $0) != nil }
            case .string(let name)?:
                guard let environment = EnvironmentName(rawValue: name) else {
                    throw HostError(status: .badRequest, code: 107, message: "environment must be production or staging, not '\(name)'.")
                }
                guard environments.engine(of: environment) != nil else {
                    throw HostError(status: .notFound, code: 1, message: "\(environment) has no engine (--engine-command, --engine-url or a deployed engine app).")
                }
                asked = [environment]
            default:
                throw HostError(status: .badRequest, code: 107, message: "environment must be a string.")
            }
            var answer: [String: JSONValue] = [:]
            for environment in asked {
                do throws(EngineError) {
                    let (names, clashes) = try await environments.refreshEngine(environment, deadline: .now + Self.answerTime)
                    answer[environment.rawValue] = [
                        "names": .array(names.sorted().map(JSONValue.string)), "clashes": .array(clashes.map(JSONValue.string)),
                    ]
                } catch {
                    throw HostError(status: .serviceUnavailable, code: 1, message: "\(environment)'s engine: \(error.description).")
                }
            }
            return JSONResponse(.object(answer))
        }
    }
}
