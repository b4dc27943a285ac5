import Foundation
import LiveQuery
internal import PostgresNIO

/// The classes each host's subscriptions watch, recorded in the database so that a host announces
/// only writes some host may deliver.
///
/// Tables: `fh_watch_hosts` (each host's id, lease expiry, and the watch version it has loaded),
/// `fh_watch` (host, class), `fh_watch_version` (one number, raised by every change of a host's
/// classes). Each host listens on the schema's watch channel; a change notifies the version, and
/// every host loads the set of classes live hosts watch (one statement, one snapshot), records
/// the version it loaded and notifies `ack`.
///
/// The guarantee: `watch` of a class no host watched returns once every host whose lease is live
/// has loaded a set holding it (or after `watchAcknowledgement`, logged). A publisher asks after
/// its write committed, so a write committed on any host after a subscribe returned is
/// announced. A host whose watch connection is down, or whose lease it could not renew, announces
/// every write until it has loaded the set again; a host that stopped renewing its lease (gone)
/// stops counting after `watchLease`, and its classes with it.
extension PostgresChangeFeed {
    /// The notification channel of a schema's watch tables.
    static func watchChannel(for schema: String?) -> String {
        String(("fh_watch_" + (schema ?? "public")).prefix(63))
    }

    /// Creates the watch tables when missing (within `migrate`'s transaction).
    static func migrateWatch(on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS fh_watch_hosts (
                host text PRIMARY KEY, expires timestamptz NOT NULL, seen bigint NOT NULL)
            """, logger: quiet)
        try await connection.query(
            """
            CREATE TABLE IF NOT EXISTS fh_watch (
                host text NOT NULL REFERENCES fh_watch_hosts ON DELETE CASCADE, class text NOT NULL, PRIMARY KEY (host, class))
            """, logger: quiet)
        try await connection.query(
            "CREATE TABLE IF NOT EXISTS fh_watch_version (id int PRIMARY KEY CHECK (id = 1), version bigint NOT NULL)",
            logger: quiet)
        try await connection.query(
            "INSERT INTO fh_watch_version (id, version) VALUES (1, 0) ON CONFLICT (id) DO NOTHING", logger: quiet)
    }

    /// Records the classes this host watches; when that adds one, waits until every live host
    /// has loaded it (see the extension's comment).
    public func watch(_ classes: Set<String>) async {
        guard shared.want(classes) else { return }
        do {
            // Recorded even when another subscribe just wrote the class: this one waits for the
            // version that holds it too (the row lock orders the two).
            let version = try await record()
            try await awaitLoaded(version)
            shared.confirm(classes)
        } catch {
            logger.error("LiveQuery: the classes this host watches could not be recorded: \(String(reflecting: error))")
        }
    }

    /// Whether a write of the class must be announced for another host: a class some live host
    /// watches, or any class while this host doesn't follow the watched set.
    public func announces(_ className: String) -> Bool {
        shared.announces(className)
    }

    /// Writes this host's classes (what it wants now) and renews its lease; when the classes
    /// changed, raises the version and notifies the hosts. Returns the version of the write.
    @discardableResult
    func record() async throws -> Int64 {
        let lease = Self.seconds(settings.watchLease)
        let version = try await client.withTransaction(logger: Self.quiet) { connection -> Int64 in
            try await connection.query(
                """
                INSERT INTO fh_watch_hosts (host, expires, seen) VALUES (\(hostID), clock_timestamp() + make_interval(secs => \(lease)), -1)
                ON CONFLICT (host) DO UPDATE SET expires = excluded.expires
                """, logger: Self.quiet)
            // The host's row is locked until COMMIT: two records of one host write in turn, and
            // the later reads what the hub wants after the earlier committed.
            try await connection.query("SELECT 1 FROM fh_watch_hosts WHERE host = \(hostID) FOR UPDATE", logger: Self.quiet)
            let wanted = shared.desired.classes
            let sorted = wanted.sorted()
            let removed = try await Self.values(
                connection.query(
                    "DELETE FROM fh_watch WHERE host = \(hostID) AND NOT (class = ANY(\(sorted))) RETURNING class", logger: Self.quiet
                ).decode(String.self))
            let added = try await Self.values(
                connection.query(
                    """
                    INSERT INTO fh_watch (host, class) SELECT \(hostID), unnest(\(sorted)::text[])
                    ON CONFLICT DO NOTHING RETURNING class
                    """, logger: Self.quiet
                ).decode(String.self))
            self.shared.wrote(wanted)
            guard !removed.isEmpty || !added.isEmpty else {
                return try await Self.values(
                    connection.query("SELECT version FROM fh_watch_version WHERE id = 1", logger: Self.quiet).decode(Int64.self)
                ).first ?? 0
            }
            let version =
                try await Self.values(
                    connection.query(
                        "UPDATE fh_watch_version SET version = version + 1 WHERE id = 1 RETURNING version", logger: Self.quiet
                    ).decode(Int64.self)
                ).first ?? 0
            try await connection.query("SELECT pg_notify(\(self.watchChannel), \(String(version)))", logger: Self.quiet)
            return version
        }
        shared.renewed(lease: settings.watchLease)
        return version
    }

    /// Waits until no live host has loaded a version older than `version`, at most
    /// `watchAcknowledgement`; each host's `ack` notification wakes the wait.
    func awaitLoaded(_ version: Int64) async throws {
        let (signals, stop) = shared.signals()
        defer { stop() }
        if try await hostsBehind(version) == 0 { return }
        let loaded = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in signals where (try? await self.hostsBehind(version)) == 0 { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: self.settings.watchAcknowledgement)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !loaded {
            logger.warning(
                "LiveQuery: a host did not load the newly watched classes within \(settings.watchAcknowledgement); its writes of them may not reach other hosts until it does")
        }
    }

    /// How many live hosts have loaded a version older than `version`.
    func hostsBehind(_ version: Int64) async throws -> Int64 {
        try await Self.values(
            client.query(
                "SELECT count(*) FROM fh_watch_hosts WHERE expires > clock_timestamp() AND seen < \(version)", logger: Self.quiet
            ).decode(Int64.self)
        ).first ?? 0
    }

    /// Follows the watch channel until cancelled: loads the watched set at each change and at
    /// each renewal, reconnecting after the back-off when the connection drops.
    func followWatches() async {
        var attempt = 0
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: self.watchChannel) { notifications in
                        // LISTEN is in effect: a change committed after this load notifies.
                        try await self.record()
                        try await self.load(on: connection)
                        attempt = 0
                        for try await notification in notifications {
                            if notification.payload == "ack" {
                                self.shared.notified()
                            } else if let version = Int64(notification.payload), version > self.shared.version {
                                try await self.load(on: connection)
                            }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { break }
                logger.warning("LiveQuery: the watched classes' connection was lost: \(String(reflecting: error))")
            }
            shared.lost()
            if Task.isCancelled { break }
            attempt += 1
            do { try await settings.backOff(attempt) } catch { break }
        }
        shared.lost()
    }

    /// Loads the classes live hosts watch and the version they are at, in one snapshot, records
    /// that this host loaded it, and notifies `ack`.
    func load(on connection: PostgresConnection) async throws {
        let rows = try await Self.values(
            connection.query(
                """
                SELECT (SELECT version FROM fh_watch_version WHERE id = 1),
                    ARRAY(SELECT DISTINCT w.class FROM fh_watch w JOIN fh_watch_hosts h ON h.host = w.host
                          WHERE h.expires > clock_timestamp())
                """, logger: Self.quiet
            ).decode((Int64, [String]).self))
        guard let (version, classes) = rows.first else { return }
        shared.load(Set(classes), version: version, lease: settings.watchLease)
        try await connection.query(
            """
            WITH acked AS (UPDATE fh_watch_hosts SET seen = greatest(seen, \(version)) WHERE host = \(hostID) RETURNING 1)
            SELECT pg_notify(\(watchChannel), 'ack') FROM acked
            """, logger: Self.quiet)
    }

    /// Renews this host's lease and rewrites its classes at a third of the lease, drops the
    /// hosts whose lease ran out, and loads the set again (a gone host's classes leave it).
    func renewPeriodically() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: settings.watchLease / 3)
            } catch {
                return
            }
            do {
                try await record()
                try await client.query("DELETE FROM fh_watch_hosts WHERE expires < clock_timestamp()", logger: Self.quiet)
                try await client.withConnection { try await self.load(on: $0) }
            } catch {
                logger.warning("LiveQuery: renewing this host's watched classes failed: \(String(reflecting: error))")
            }
        }
    }

    /// Returns once `condition` holds, looking again at each load of the watched classes and
    /// each notification (for tests and tools; wrap it in a deadline).
    package func untilWatch(_ condition: @Sendable (PostgresChangeFeed) -> Bool) async {
        let (signals, stop) = shared.signals()
        defer { stop() }
        if condition(self) { return }
        for await _ in signals where condition(self) { return }
    }

    /// Whether the watched classes are loaded and followed (else every write is announced).
    package var followsWatches: Bool { shared.isFollowing }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
