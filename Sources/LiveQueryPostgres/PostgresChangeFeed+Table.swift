package import DataAPI
package import LiveQuery
import JSON
internal import NIOSSL
package import PostgresNIO

extension PostgresChangeFeed {
    /// Whether a change still carries its object's stored state, read from the engine of the
    /// change's environment: an update's or a create's `updatedAt` is the stored one's, a delete's
    /// object is gone. A login is no state change and always is; so is any change the engine
    /// can't answer for (the publication then goes ahead rather than lose it).
    package static func isStored(in engines: StorageEngines) -> @Sendable (CommittedChange) async -> Bool {
        { change in
            guard change.kind != .login, let id = change.object["objectId"]?.stringValue else { return true }
            let stored: StoredObject?
            do {
                stored = try await engines.engine(for: change.environment).fetch(change.className, id: id)
            } catch {
                return true
            }
            guard let stored else { return change.kind == .delete }
            return change.kind != .delete && change.object["updatedAt"]?.stringValue == stored.updatedAt
        }
    }

    /// The two-key advisory lock publications take (the first key the feed's, the second the
    /// schema's), so numbers are drawn in commit order.
    static let lockKey: Int32 = 727_463

    /// Creates the tables when missing, under the lock hosts starting together queue on.
    func migrate(schema: String?) async throws {
        try await client.withTransaction(logger: Self.quiet) { connection in
            try await connection.query("SET LOCAL statement_timeout = 0", logger: Self.quiet)
            if let schema {
                try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(schema)\""), logger: Self.quiet)
            }
            try await connection.query(
                "SELECT pg_advisory_xact_lock(\(Self.lockKey), hashtext(current_schema()))", logger: Self.quiet)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS fh_changes (
                    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at timestamptz NOT NULL, payload text NOT NULL)
                """, logger: Self.quiet)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS fh_change_trim (id int PRIMARY KEY CHECK (id = 1), upto bigint NOT NULL)",
                logger: Self.quiet)
            try await connection.query(
                "INSERT INTO fh_change_trim (id, upto) VALUES (1, 0) ON CONFLICT (id) DO NOTHING", logger: Self.quiet)
            try await Self.migrateWatch(on: connection)
        }
    }

    /// The number past which a feed opened now starts: the newest written or trimmed.
    func newestNumber() async throws -> Int64 {
        try await Self.values(
            client.query(
                "SELECT greatest((SELECT coalesce(max(seq), 0) FROM fh_changes), (SELECT upto FROM fh_change_trim WHERE id = 1))",
                logger: Self.quiet
            ).decode(Int64.self)
        ).first ?? 0
    }

    /// Writes a change under the publication lock; false when its object has moved on.
    func insert(_ payload: String, of change: CommittedChange) async throws -> Bool {
        try await client.withTransaction(logger: Self.quiet) { connection in
            // A change that dies with the database's crash is no acknowledged write: the write
            // itself was committed durably; its announcement need not wait for the disk too.
            try await connection.query("SET LOCAL synchronous_commit = off", logger: Self.quiet)
            try await connection.query(
                "SELECT pg_advisory_xact_lock(\(Self.lockKey), hashtext(current_schema()))", logger: Self.quiet)
            guard await self.isCurrent(change) else { return false }
            try await connection.query(
                """
                WITH written AS (INSERT INTO fh_changes (at, payload) VALUES (clock_timestamp(), \(payload)) RETURNING seq)
                SELECT pg_notify(\(self.channel), seq::text) FROM written
                """, logger: Self.quiet)
            return true
        }
    }

    /// Trims the changes past the settings' age or count, recording the highest number trimmed.
    /// Every host does it, at `trimInterval`; running it twice at once is harmless.
    package func trim() async throws {
        let keep = Int64(settings.retainedChanges)
        let age = Double(settings.retainedAge.components.seconds)
            + Double(settings.retainedAge.components.attoseconds) / 1e18
        try await client.query(
            """
            WITH gone AS (
                DELETE FROM fh_changes
                WHERE seq <= (SELECT max(seq) FROM fh_changes) - \(keep) OR at < clock_timestamp() - make_interval(secs => \(age))
                RETURNING seq)
            UPDATE fh_change_trim SET upto = greatest(upto, (SELECT coalesce(max(seq), 0) FROM gone)) WHERE id = 1
            """, logger: Self.quiet)
    }

    /// How many changes the table holds now.
    package func retainedCount() async throws -> Int {
        Int(try await Self.values(client.query("SELECT count(*) FROM fh_changes", logger: Self.quiet).decode(Int64.self)).first ?? 0)
    }

    /// Trims at each interval until cancelled; a failure is logged and tried at the next.
    func trimPeriodically() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: settings.trimInterval)
            } catch {
                return
            }
            do {
                try await trim()
            } catch {
                logger.warning("LiveQuery: trimming the change table failed: \(String(reflecting: error))")
            }
        }
    }

    /// Every value of a decoded row sequence.
    static func values<S: AsyncSequence>(_ sequence: S) async throws -> [S.Element] {
        var values: [S.Element] = []
        for try await value in sequence { values.append(value) }
        return values
    }

    /// The notification channel of a schema (at most 63 bytes, PostgreSQL's longest name).
    static func channel(for schema: String?) -> String {
        String(("fh_changes_" + (schema ?? "public")).prefix(63))
    }

    /// Whether the connection failed rather than the statement.
    static func isConnectionLoss(_ error: any Error) -> Bool {
        let underlying = (error as? PostgresTransactionError).map { $0.closureError ?? $0.beginError ?? error } ?? error
        guard let error = underlying as? PSQLError else { return false }
        if let state = error.serverInfo?[.sqlState] { return state.hasPrefix("08") || state.hasPrefix("57P") }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return true
        default: return false
        }
    }

    /// The pool's configuration: the location's server, TLS and schema, the statement budget.
    package static func configuration(_ location: PostgresLocation, _ settings: PostgresChangeFeedSettings) throws
        -> PostgresClient.Configuration
    {
        let tls: PostgresClient.Configuration.TLS
        switch location.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(.makeClientConfiguration())
        case .require: tls = .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: tls)
        // The follower holds one connection for as long as it runs.
        configuration.options.maximumConnections = settings.poolSize + 1
        configuration.options.connectTimeout = .seconds(5)
        let budget = settings.statementBudget.components
        let milliseconds = max(1, budget.seconds * 1000 + budget.attoseconds / 1_000_000_000_000_000)
        configuration.options.additionalStartupParameters = [("statement_timeout", String(milliseconds))]
        if let schema = location.schema {
            configuration.options.additionalStartupParameters.append(("search_path", schema))
        }
        return configuration
    }
}
