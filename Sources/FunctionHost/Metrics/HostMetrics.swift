import Foundation
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
    /// Gauges a part of the server reports itself, read at each scrape (the change feed's).
    private let gaugeSources = Mutex<[@Sendable () -> [Gauge]]>([])

    /// Latency buckets from 100 µs: most calls here take well under the default's first 5 ms.
    static let buckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        .seconds(15),
    ]

    /// How late a task starts, from 10 ms (an idle host) to 10 minutes (a queue backed up).
    static let queueDelayBuckets: [Duration] = [
        .milliseconds(10), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30), .seconds(60), .seconds(120), .seconds(300),
        .seconds(600),
    ]

    /// Each function's and route's counts per minute, the last hour (the console's charts).
    let history: MetricsHistory

    /// Creates empty metrics, the history's minutes on `now`'s clock.
    init(now: @escaping @Sendable () -> Date = { Date() }) {
        history = MetricsHistory(now: now)
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.buckets
        factory.durationHistogramBuckets["functionhost_queue_delay_seconds"] = Self.queueDelayBuckets
        self.factory = factory
    }

    /// One HTTP request: its route (the pattern, not the path, so ids don't multiply the
    /// series), method, status and environment. The labels are built once per series, when it
    /// is first seen; a request only looks its series up.
    func recordRequest(route: String, method: String, status: Int, environment: String, duration: Duration) {
        let key = SeriesKey(name: route, kind: method, status: status, environment: environment)
        let series = requests.withLock { $0[key] } ?? newRequestSeries(key)
        series.timer.record(duration: duration)
        series.errors?.increment()
        history.record(.init(kind: "route", method: method, name: route, environment: environment), failed: status >= 500, duration: duration)
    }

    /// One call of a cloud function; `outcome` is `ok`, `error` (it threw for its caller),
    /// `failure` (it crashed) or `timeout`.
    func recordFunction(name: String, environment: String, outcome: String, duration: Duration) {
        let key = SeriesKey(name: name, kind: outcome, status: 0, environment: environment)
        timer(key, in: functions) {
            Timer(
                label: "functionhost_function_duration_seconds",
                dimensions: [("function", name), ("environment", environment), ("outcome", outcome)], factory: factory)
        }.record(duration: duration)
        history.record(.init(kind: "function", name: name, environment: environment), failed: outcome != "ok", duration: duration)
    }

    /// The labels of a request's series (route, method, status, environment) or of a
    /// function's (name, outcome, environment): strings the request already holds, hashed to find
    /// the series again.
    private struct SeriesKey: Hashable {
        var name: String
        var kind: String
        var status: Int
        var environment: String
    }

    /// What one kind of request is counted in: its latency, and for a 5xx the error count.
    private struct RequestSeries {
        let timer: Timer
        let errors: CoreMetrics.Counter?
    }

    private let requests = Mutex<[SeriesKey: RequestSeries]>([:])
    private let functions = Mutex<[SeriesKey: Timer]>([:])
    private let hooks = Mutex<[SeriesKey: Timer]>([:])
    private let storage = Mutex<[SeriesKey: Timer]>([:])

    /// How many request series have been made: one per route, method, status and environment
    /// seen, however many requests each counted.
    var requestSeriesCount: Int { requests.withLock { $0.count } }

    private func newRequestSeries(_ key: SeriesKey) -> RequestSeries {
        let dimensions = [("route", key.name), ("method", key.kind), ("status", String(key.status)), ("environment", key.environment)]
        let series = RequestSeries(
            timer: Timer(label: "functionhost_http_request_duration_seconds", dimensions: dimensions, factory: factory),
            errors: key.status >= 500
                ? Counter(label: "functionhost_http_server_errors_total", dimensions: dimensions, factory: factory) : nil)
        requests.withLock { $0[key] = series }
        return series
    }

    /// One run of a hook.
    func recordHook(kind: String, className: String, environment: String, failed: Bool, duration: Duration) {
        let outcome = failed ? "error" : "ok"
        timer(SeriesKey(name: className, kind: kind, status: failed ? 1 : 0, environment: environment), in: hooks) {
            Timer(
                label: "functionhost_hook_duration_seconds",
                dimensions: [("hook", kind), ("class", className), ("environment", environment), ("outcome", outcome)],
                factory: factory)
        }.record(duration: duration)
    }

    /// One storage operation (`find`, `create`, ...), failed or not.
    func recordStorage(operation: String, failed: Bool, duration: Duration) {
        timer(SeriesKey(name: operation, kind: "", status: failed ? 1 : 0, environment: ""), in: storage) {
            Timer(
                label: "functionhost_storage_duration_seconds",
                dimensions: [("operation", operation), ("outcome", failed ? "error" : "ok")], factory: factory)
        }.record(duration: duration)
    }

    /// The timer of a series, made (its labels built) only the first time the series is seen:
    /// a hook run or a storage operation then only looks it up.
    private func timer(_ key: SeriesKey, in series: borrowing Mutex<[SeriesKey: Timer]>, make: () -> Timer) -> Timer {
        if let timer = series.withLock({ $0[key] }) { return timer }
        let timer = make()
        series.withLock { $0[key] = timer }
        return timer
    }

    /// One Cloud Queue task attempt ended: `success`, `error`, `timeout` or `lost`.
    func recordQueueTask(outcome: String) {
        Counter(label: "functionhost_queue_tasks_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    /// How long after it was due a task's attempt started.
    func recordQueueDelay(_ delay: Duration) {
        Timer(label: "functionhost_queue_delay_seconds", dimensions: [], factory: factory).record(duration: max(delay, .zero))
    }

    /// A timer fired: this host enqueued its task.
    func recordTimerFiring() {
        Counter(label: "functionhost_timer_firings_total", dimensions: [], factory: factory).increment()
    }

    /// The realtime (LiveQuery) connections open now.
    private let realtimeOpen = Atomic<Int>(0)

    /// A realtime connection opened (upgraded to a WebSocket).
    func recordRealtimeOpened() {
        let open = realtimeOpen.add(1, ordering: .relaxed).newValue
        CoreMetrics.Gauge(label: "functionhost_realtime_connections", factory: factory).record(open)
    }

    /// A realtime connection ended, whatever closed it (`recordRealtimeClose` says why).
    func recordRealtimeEnded() {
        let open = realtimeOpen.subtract(1, ordering: .relaxed).newValue
        CoreMetrics.Gauge(label: "functionhost_realtime_connections", factory: factory).record(open)
    }

    /// The realtime connections open now.
    var realtimeConnections: Int { realtimeOpen.load(ordering: .relaxed) }

    /// One realtime command, `in` from a client or `out` to one, by its command name (`login`,
    /// `data`, `heartbeat` for the JSON dialect's `{}`...): a fixed set, never an id.
    func recordRealtimeCommand(direction: String, command: String) {
        Counter(
            label: "functionhost_realtime_commands_total", dimensions: [("direction", direction), ("command", command)],
            factory: factory
        ).increment()
    }

    /// Why a realtime connection ended, or an upgrade was refused: `client`, `idle`,
    /// `slow_consumer`, `too_fast`, `malformed`, `protocol`, `wrong_app`, `invalid_login`,
    /// `refused_upgrade`.
    func recordRealtimeClose(_ reason: String) {
        Counter(label: "functionhost_realtime_closes_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// A value that is a state rather than a count, read when the metrics are scraped.
    struct Gauge: Sendable {
        var name: String
        var labels: [(String, String)]
        var value: Double
    }

    /// Adds gauges that `render` reads from `source` at each scrape.
    func addGauges(_ source: @escaping @Sendable () -> [Gauge]) {
        gaugeSources.withLock { $0.append(source) }
    }

    /// Everything, in Prometheus's text exposition format, with `gauges` as they are now.
    func render(gauges: [Gauge]) -> [UInt8] {
        let reported = gaugeSources.withLock { $0 }.flatMap { $0() }
        for gauge in gauges + reported {
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
