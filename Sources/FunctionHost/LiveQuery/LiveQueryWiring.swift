import DataAPI
import LiveQuery
import ServiceLifecycle
import Synchronization

/// The classes the hub's subscriptions watch, for the write listener, which is made before the
/// hub (the hub is made over the hooked service, which copies the listeners). Nothing is
/// watched until the hub is set, before the host serves.
final class WatchedClasses: Sendable {
    private let current = Mutex<LiveQueryHub?>(nil)

    /// The hub asked.
    var hub: LiveQueryHub? {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }

    /// Whether a write of the class may matter to a subscription.
    func contains(_ className: String) -> Bool {
        hub?.watches(className) ?? false
    }
}

/// Runs the hub's delivery for the application's lifetime: it ends at shutdown.
struct LiveQueryDelivery: Service {
    let hub: LiveQueryHub

    func run() async throws {
        await cancelWhenGracefulShutdown { await hub.run() }
    }
}

extension LiveQueryHub {
    /// The hub's counts as metrics gauges (scraped, not pushed: a count per event would cost a
    /// lock per delivery).
    var gauges: [HostMetrics.Gauge] {
        let statistics = self.statistics
        return [
            HostMetrics.Gauge(name: "functionhost_livequery_subscriptions", labels: [], value: Double(statistics.subscriptions)),
            HostMetrics.Gauge(name: "functionhost_livequery_subscription_ids", labels: [], value: Double(statistics.subscriptionIDs)),
            HostMetrics.Gauge(name: "functionhost_livequery_connections", labels: [], value: Double(statistics.connections)),
            HostMetrics.Gauge(
                name: "functionhost_livequery_events_delivered_total", labels: [], value: Double(statistics.eventsDelivered)),
            HostMetrics.Gauge(name: "functionhost_livequery_events_dropped_total", labels: [], value: Double(statistics.eventsDropped)),
            HostMetrics.Gauge(
                name: "functionhost_livequery_slow_connections_total", labels: [], value: Double(statistics.slowConnections)),
            HostMetrics.Gauge(
                name: "functionhost_livequery_regex_cut_short_total", labels: [], value: Double(statistics.regexEvaluationsCutShort)),
            HostMetrics.Gauge(name: "functionhost_livequery_changes_lost_total", labels: [], value: Double(statistics.changesLost)),
            HostMetrics.Gauge(
                name: "functionhost_livequery_lost_event_connections_total", labels: [],
                value: Double(statistics.lostEventConnections)),
        ]
    }
}

extension FunctionHostServer {
    /// The change feed writes are announced on (the configured one, else this host's own) and
    /// the hub that delivers them, over the service rights are worked out with.
    static func makeLiveQuery(configuration: HostConfiguration, feed: any ChangeFeed, data: DataService) -> LiveQueryHub {
        LiveQueryHub(
            data: data, feed: feed, limits: configuration.liveQueryLimits,
            environmentsShareData: configuration.stagingDataDirectory == nil && configuration.stagingDatabase == nil,
            now: configuration.clock)
    }
}
