import HTTPTypes
import Hummingbird
import Logging

/// One log line and one metrics record per request, once its answer is ready: request id (from
/// Hummingbird's logger), method, route, status, duration and environment.
///
/// `EdgeMiddleware` calls it after every other step but `RequestFactsReader`, so 401s and
/// preflights are counted too, under the environment that one read from `X-LC-Prod`.
struct RequestObserver {
    typealias Context = HostRequestContext
    let metrics: HostMetrics

    /// Logs and counts `request` to `path`, answered with `status`, since `start`.
    func record(_ request: Request, path: String, _ context: Context, status: Int, environment: String, since start: ContinuousClock.Instant) {
        let duration = start.duration(to: .now)
        let route = context.endpointPath ?? "unmatched"
        metrics.recordRequest(
            route: route, method: request.method.rawValue, status: status, environment: environment, duration: duration)
        let line = RequestLogLine(
            method: request.method.rawValue, route: route, path: path, status: status, duration: duration,
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
