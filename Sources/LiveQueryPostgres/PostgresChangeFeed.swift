package import DataAPI
public import LiveQuery
package import Logging
internal import PostgresNIO
import Foundation
import Synchronization

/// The change feed of several hosts sharing one PostgreSQL database: a change table every host
/// writes its committed writes to and follows.
///
/// Why a table and not NOTIFY's payload: a payload holds at most 8 000 bytes and an object can
/// be far larger, and a notification sent while a host is disconnected is gone. Each change is a
/// row (`fh_changes`: a sequence number, the time, the change as JSON); `NOTIFY` only wakes the
/// followers, which read every row past the last one they read, so a host whose connection drops
/// reads what it missed once it reconnects, as long as the table still holds it.
///
/// Order: a publication takes a transaction-scoped advisory lock before it draws its number, so
/// numbers are drawn in the order publications commit and a follower that has read number `n`
/// has seen every committed row below it (no gap can fill later). Per object, a publication
/// first checks, under that lock, that the object as stored is still the state it carries
/// (`isCurrent`); when a later write of the object has already committed, the change is not
/// written (`superseded`): the later write's own change carries the newer state. Two hosts that
/// committed updates of one object can therefore announce them in either order and every host
/// still hears the older state before the newer one, or only the newer.
///
/// Retention: rows older than `retainedAge` or past the newest `retainedChanges` are trimmed;
/// the highest trimmed number is recorded, and a follower that finds it has fallen behind it
/// counts the changes as `lost` and logs it.
public final class PostgresChangeFeed: ChangeFeed {
    /// How the table is kept and followed.
    public let settings: PostgresChangeFeedSettings
    /// What the feed has done, for metrics.
    public let statistics = ChangeFeedStatistics()
    let client: PostgresClient
    let logger: Logger
    /// Whether a change is still the stored state of its object (see the type's comment).
    let isCurrent: @Sendable (CommittedChange) async -> Bool
    /// The channel notifications are sent on: one per schema, so apps (or tests) that share a
    /// database don't wake each other.
    let channel: String
    /// The notification channel of the watched classes (`PostgresChangeFeed+Watch`).
    let watchChannel: String
    /// This host's id in the watch tables: one per feed opened.
    let hostID = UUID().uuidString.lowercased()
    /// The classes every host watches, as this host last loaded them.
    let shared = SharedWatch()
    /// Hands each change read to this host's streams.
    private let fanOut = LocalChangeFeed()
    /// The number of the last change handed to the streams.
    let cursor: Mutex<Int64>
    /// The follower connection's server process, while it is connected.
    private let listener = Mutex<Int32?>(nil)
    /// Runs the connection pool until `close()`.
    private let runner: Task<Void, Never>

    /// Statements that only a few rows read or write; postgres-nio's own logging is not wanted.
    static let quiet = Logger(label: "functionhost.changefeed.query", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Connects to the database at `location`, creating the change table when missing. The feed
    /// hears every change published from now on, by any host, once `run()` follows the table.
    ///
    /// - Parameter isCurrent: whether a change's object as stored is still the state the change
    ///   carries (see `isStored(in:)`); a change that is not is never written.
    package static func open(
        location: PostgresLocation, settings: PostgresChangeFeedSettings = PostgresChangeFeedSettings(),
        isCurrent: @escaping @Sendable (CommittedChange) async -> Bool,
        logger: Logger = Logger(label: "functionhost.changefeed")
    ) async throws -> PostgresChangeFeed {
        let feed = PostgresChangeFeed(
            client: PostgresClient(configuration: try configuration(location, settings), backgroundLogger: quiet),
            channel: channel(for: location.schema), schema: location.schema, settings: settings, isCurrent: isCurrent, logger: logger)
        do {
            try await feed.migrate(schema: location.schema)
            feed.cursor.withLock { $0 = 0 }
            let start = try await feed.newestNumber()
            feed.cursor.withLock { $0 = start }
        } catch {
            await feed.close()
            throw error
        }
        return feed
    }

    private init(
        client: PostgresClient, channel: String, schema: String?, settings: PostgresChangeFeedSettings,
        isCurrent: @escaping @Sendable (CommittedChange) async -> Bool, logger: Logger
    ) {
        self.client = client
        self.channel = channel
        self.watchChannel = Self.watchChannel(for: schema)
        self.settings = settings
        self.isCurrent = isCurrent
        self.logger = logger
        cursor = Mutex(0)
        runner = Task { await client.run() }
    }

    /// Writes the change to the table, unless a later write of its object has committed. A
    /// failure is logged and counted: the change is then heard by no host.
    public func publish(_ change: CommittedChange) async {
        let payload = ChangeRecord.encode(change)
        var attempt = 0
        while true {
            attempt += 1
            do {
                let written = try await insert(payload, of: change)
                statistics.record { written ? ($0.published += 1) : ($0.superseded += 1) }
                return
            } catch {
                // A connection lost before COMMIT was sent left nothing behind: once more is safe.
                if attempt < 2, Self.isConnectionLoss(error), (error as? PostgresTransactionError)?.commitError == nil {
                    continue
                }
                statistics.record { $0.publishFailures += 1 }
                logger.error(
                    "LiveQuery: a \(change.kind.rawValue) of \(change.className) was not announced to the other hosts: \(String(reflecting: error))")
                return
            }
        }
    }

    /// A stream of every change any host publishes from now on, each once, in the order they
    /// were written to the table. It ends when the feed stops.
    public func changes() -> AsyncStream<CommittedChange> {
        fanOut.changes()
    }

    /// Follows the table and the watched classes and trims the table until cancelled, reconnecting after the back-off when the
    /// connection drops; then ends every stream.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.follow() }
            group.addTask { await self.trimPeriodically() }
            group.addTask { await self.followWatches() }
            group.addTask { await self.renewPeriodically() }
            await group.next()
            group.cancelAll()
        }
        fanOut.finish()
    }

    /// Closes the feed's connections; it can't publish after it. Closing twice is harmless.
    public func close() async {
        runner.cancel()
        await runner.value
    }

    /// The server process of the follower's connection while it is connected (what an operator,
    /// or a test, passes to `pg_terminate_backend`).
    package var listenerProcessID: Int32? { listener.withLock { $0 } }

    // MARK: Following

    private func follow() async {
        var attempt = 0
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await self.listen(on: connection) { attempt = 0 }
                }
            } catch {
                if Task.isCancelled { break }
                logger.warning("LiveQuery: the change feed's connection was lost: \(String(reflecting: error))")
            }
            listener.withLock { $0 = nil }
            if Task.isCancelled { break }
            attempt += 1
            statistics.record { $0.reconnects += 1 }
            do { try await settings.backOff(attempt) } catch { break }
        }
    }

    /// Listens, reads what was missed, then reads again at each notification, until the
    /// connection drops (throws) or the task is cancelled.
    private func listen(on connection: PostgresConnection, connected: () -> Void) async throws {
        try await connection.listen(on: channel) { notifications in
            let process = try await Self.values(
                connection.query("SELECT pg_backend_pid()", logger: Self.quiet).decode(Int32.self)
            ).first
            listener.withLock { $0 = process }
            connected()
            // LISTEN is in effect before this read: whatever commits after it also notifies.
            try await catchUp(on: connection)
            for try await notification in notifications {
                // The payload is the change's number: one already read needs no read.
                if let number = Int64(notification.payload), number <= cursor.withLock({ $0 }) { continue }
                try await catchUp(on: connection)
            }
        }
    }

    /// Reads every change past the cursor, in order, and hands each to the streams.
    func catchUp(on connection: PostgresConnection) async throws {
        var last = cursor.withLock { $0 }
        let trimmed =
            try await Self.values(
                connection.query("SELECT upto FROM fh_change_trim WHERE id = 1", logger: Self.quiet).decode(Int64.self)
            ).first ?? 0
        if trimmed > last {
            let missed = Int(trimmed - last)
            statistics.record { $0.lost += missed }
            logger.error(
                "LiveQuery: up to \(missed) changes were trimmed from the change table before this host read them; its subscribers missed them")
            last = trimmed
            cursor.withLock { $0 = trimmed }
        }
        while true {
            // At most `batchSize` rows and, past the first, `batchBytes` of changes: a read of
            // large objects holds a bounded amount in memory.
            let rows = try await Self.values(
                connection.query(
                    """
                    SELECT seq, payload, (extract(epoch FROM clock_timestamp() - at) * 1000)::float8 FROM (
                        SELECT seq, payload, at, sum(octet_length(payload)) OVER (ORDER BY seq) - octet_length(payload) AS before
                        FROM fh_changes WHERE seq > \(last) ORDER BY seq LIMIT \(settings.batchSize)) batch
                    WHERE before < \(Int64(settings.batchBytes)) ORDER BY seq
                    """, logger: Self.quiet
                ).decode((Int64, String, Double).self))
            for (number, payload, lag) in rows {
                last = number
                cursor.withLock { $0 = number }
                guard let change = ChangeRecord.decode(payload) else {
                    statistics.record { $0.unreadable += 1 }
                    logger.error("LiveQuery: change \(number) of the change table is not a change; skipped")
                    continue
                }
                statistics.record {
                    $0.received += 1
                    $0.lastLagMilliseconds = lag
                }
                await fanOut.publish(change)
            }
            // A short read may be short by bytes: only an empty one says the follower is caught up.
            if rows.isEmpty { return }
        }
    }
}
