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

    func record(_ request: Request, _ context: Context, status: Int, environment: String, since start: ContinuousClock.Instant) {
        let duration = start.duration(to: .now)
        let route = context.endpointPath ?? "unmatched"
        metrics.recordRequest(
            route: route, method: request.method.rawValue, status: status, environment: environment, duration: duration)
        let line = RequestLogLine(
            method: request.method.rawValue, route: route, path: request.uri.path, status: status, duration: duration,
            environment: environment)
        // The server's own handler takes the fields and formats the line on its writer thread;
        // any other handler (the tests') is given the line's metadata, as always.
        if let console = context.logger.handler as? ConsoleLogHandler {
            console.logRequest(line)
        } else {
            context.logger.info(Logger.Message(stringLiteral: RequestLogLine.message), metadata: line.metadata)
        }
    }
}
