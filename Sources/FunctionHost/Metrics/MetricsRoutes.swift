import Hummingbird
import NIOCore

/// `GET /metrics`: Prometheus's text format. On the main port it needs the master key; on the
/// admin port (`--admin-port`) it needs none, as that port is for the operator's network only.
struct MetricsRoutes: Sendable {
    let metrics: HostMetrics
    let requiresMaster: Bool
    /// The values read at each scrape.
    let gauges: @Sendable () -> [HostMetrics.Gauge]

    func register(on router: Router<HostRequestContext>) {
        router.get("metrics") { _, context in
            if requiresMaster, !context.caller.isMaster {
                throw HostError.unauthorized
            }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: metrics.render(gauges: gauges()))))
        }
    }
}
