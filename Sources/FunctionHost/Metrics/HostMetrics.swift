import CoreMetrics
import Metrics
import Prometheus
import Synchronization

/// The server's metrics, in Prometheus's text format at `/metrics`: requests, function and hook
/// invocations, storage operations, and the sandbox's pool.
///
/// One registry per server, handed to swift-metrics as an explicit factory rather than
/// bootstrapped into `MetricsSystem`: that is process-wide state, and a process (a test run)
/// may hold many servers, each counting its own.
public final class HostMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    /// Latency buckets from 100 µs: most calls here take well under the default's first 5 ms.
    static let buckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        .seconds(15),
    ]

    /// Creates empty metrics.
    init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.buckets
        self.factory = factory
    }

    /// One HTTP request: its route (the pattern, not the path, so ids don't multiply the
    /// series), method, status and environment.
    func recordRequest(route: String, method: String, status: Int, environment: String, duration: Duration) {
        let key = RequestKey(route: route, method: method, status: status, environment: environment)
        timer(for: key) {
            [("route", route), ("method", method), ("status", String(status)), ("environment", environment)]
        }.record(duration: duration)
        if status >= 500 {
            let dimensions = [("route", route), ("method", method), ("status", String(status)), ("environment", environment)]
            Counter(label: "functionhost_http_server_errors_total", dimensions: dimensions, factory: factory).increment()
        }
    }

    /// One call of a cloud function; `outcome` is `ok`, `error` (it threw for its caller),
    /// `failure` (it crashed) or `timeout`.
    func recordFunction(name: String, environment: String, outcome: String, duration: Duration) {
        let key = RequestKey(route: name, method: outcome, status: -1, environment: environment)
        timer(for: key) { [("function", name), ("environment", environment), ("outcome", outcome)] }
            .record(duration: duration)
    }

    /// The labels of a request timer, or (status -1) of a function timer: a cheap key to find
    /// the timer again, where building the labels and asking the registry cost a request about
    /// a microsecond.
    private struct RequestKey: Hashable {
        var route: String
        var method: String
        var status: Int
        var environment: String
    }

    private let timers = Mutex<[RequestKey: Timer]>([:])

    private func timer(for key: RequestKey, dimensions: () -> [(String, String)]) -> Timer {
        if let timer = timers.withLock({ $0[key] }) { return timer }
        let label = key.status < 0 ? "functionhost_function_duration_seconds" : "functionhost_http_request_duration_seconds"
        let timer = Timer(label: label, dimensions: dimensions(), factory: factory)
        timers.withLock { $0[key] = timer }
        return timer
    }

    /// One run of a hook.
    func recordHook(kind: String, className: String, environment: String, failed: Bool, duration: Duration) {
        Timer(
            label: "functionhost_hook_duration_seconds",
            dimensions: [
                ("hook", kind), ("class", className), ("environment", environment), ("outcome", failed ? "error" : "ok"),
            ], factory: factory
        ).record(duration: duration)
    }

    /// One storage operation (`find`, `create`, ...), failed or not.
    func recordStorage(operation: String, failed: Bool, duration: Duration) {
        Timer(
            label: "functionhost_storage_duration_seconds",
            dimensions: [("operation", operation), ("outcome", failed ? "error" : "ok")], factory: factory
        ).record(duration: duration)
    }

    /// A value that is a state rather than a count, read when the metrics are scraped.
    struct Gauge: Sendable {
        var name: String
        var labels: [(String, String)]
        var value: Double
    }

    /// Everything, in Prometheus's text exposition format, with `gauges` as they are now.
    func render(gauges: [Gauge]) -> [UInt8] {
        for gauge in gauges {
            // An empty unit and help leave the name as it is and write no `# HELP` line.
            let descriptor = MetricNameDescriptor(metricName: gauge.name, unitName: "", helpText: "")
            registry.makeGauge(descriptor: descriptor, labels: gauge.labels).set(gauge.value)
        }
        return registry.emitToBuffer()
    }
}

extension Timer {
    fileprivate func record(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
