import HTTPTypes
import Hummingbird
import Logging

/// One log line and one metrics record per request, once its answer is ready: request id (from
/// Hummingbird's logger), method, route, status, duration and environment.
///
/// Outside every middleware but `RequestFactsMiddleware`, so 401s and preflights are counted too,
/// under the environment that one read from `X-LC-Prod`.
struct ObservingMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let metrics: HostMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let environment = context.functionsEnvironment.rawValue
        do {
            let response = try await next(request, context)
            // Recorded when the answer is ready, not when it is written: wrapping the body to see
            // its end would cost every answer its single-buffer write, for the few that stream
            // (file downloads), whose transfer time is then not counted.
            record(request, context, status: response.status.code, environment: environment, since: start)
            return response
        } catch {
            // What the error middleware did not map (it maps everything it is given).
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context, status: status, environment: environment, since: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, environment: String, since start: ContinuousClock.Instant) {
        let duration = start.duration(to: .now)
        let route = context.endpointPath ?? "unmatched"
        metrics.recordRequest(
            route: route, method: request.method.rawValue, status: status, environment: environment, duration: duration)
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue), "route": .string(route), "path": .string(RedactedPath.of(request.uri.path)),
                "status": .stringConvertible(status), "ms": .string(Self.milliseconds(duration)),
                "environment": .string(environment),
            ])
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return "\(micros / 1000).\(String(micros % 1000 + 1000).dropFirst())"
    }
}
