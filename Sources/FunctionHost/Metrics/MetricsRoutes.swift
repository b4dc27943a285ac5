import Hummingbird
import NIOCore

/// `GET /metrics`: Prometheus's text format. On the main port it needs the master key; on the
/// admin port (`--admin-port`) it needs none, as that port is for the operator's network only.
struct MetricsRoutes: Sendable {
    let metrics: HostMetrics
    /// The values read at each scrape.
    let gauges: @Sendable () -> [HostMetrics.Gauge]
    /// Values read from the database at each scrape (the Cloud Queue's waiting tasks).
    var stored: @Sendable () async -> [HostMetrics.Gauge] = { [] }

    /// Adds `/metrics` to `routes`: a master-only group on the main port, the admin router as is.
    func register(on routes: some RouterMethods<HostRequestContext>) {
        routes.get("metrics") { _, _ in
            let current = gauges() + (await stored())
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: metrics.render(gauges: current))))
        }
    }
}
