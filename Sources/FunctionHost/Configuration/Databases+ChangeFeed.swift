import DataAPI
import LiveQuery
import LiveQueryPostgres
import Logging

extension Databases {
    /// The change feed of a host whose production data is on PostgreSQL: the database's change
    /// table, which every host sharing it writes and follows, so a write on any host reaches
    /// LiveQuery's subscribers on all of them, unless `liveQueryAcrossHosts` is off. Nil then,
    /// and on SQLite: the host's feed stays in process.
    ///
    /// Staging's writes go through the same table (each change says its environment), whether
    /// staging shares production's database or has its own: a change is checked against the
    /// engine of its environment before it is written.
    static func changeFeed(
        for configuration: HostConfiguration, engines: StorageEngines, logger: Logger
    ) async throws -> PostgresChangeFeed? {
        guard configuration.liveQueryAcrossHosts, configuration.changeFeed == nil, let location = configuration.database else {
            return nil
        }
        var settings = PostgresChangeFeedSettings()
        settings.statementBudget = configuration.statementBudget.time
        // An operator who bounds the database's connections (`?pool=N`) bounds the feed's too.
        settings.poolSize = min(settings.poolSize, location.poolSize)
        return try await PostgresChangeFeed.open(
            location: location, settings: settings, isCurrent: PostgresChangeFeed.isStored(in: engines), logger: logger)
    }
}

extension ChangeFeedStatistics {
    /// The feed's counts as metrics gauges, read at each scrape.
    var gauges: [HostMetrics.Gauge] {
        let counts = self.counts
        let values: [(String, Double)] = [
            ("published_total", Double(counts.published)), ("superseded_total", Double(counts.superseded)),
            ("publish_failures_total", Double(counts.publishFailures)), ("received_total", Double(counts.received)),
            ("reconnects_total", Double(counts.reconnects)), ("lost_total", Double(counts.lost)),
            ("unreadable_total", Double(counts.unreadable)), ("lag_milliseconds", counts.lastLagMilliseconds),
        ]
        return values.map { HostMetrics.Gauge(name: "functionhost_livequery_feed_" + $0.0, labels: [], value: $0.1) }
    }
}
