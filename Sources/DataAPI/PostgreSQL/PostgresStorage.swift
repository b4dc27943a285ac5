import JSON
package import Logging
internal import NIOSSL
internal import PostgresNIO
import Synchronization

/// The scale-out storage engine: PostgreSQL, shared by any number of hosts. A table per class,
/// documents as JSONB, queries compiled to SQL over them (the same contract and the same tests
/// as `SQLiteStorage`).
///
/// Every write is one transaction: the row is read `FOR UPDATE`, the operations applied, the
/// document written, so concurrent increments from several hosts never lose an update. Nothing
/// that matters is kept only in this process: the catalog below caches committed facts only, and
/// a miss is answered from the database.
package final class PostgresStorage: StorageEngine {
    let client: PostgresClient
    let logger: Logger
    /// What is known of each class: its table and its fields' types.
    let catalog: Mutex<[String: ClassEntry]>
    /// Creates the indexes queries need.
    let indexer = PostgresIndexer()
    /// The classes this host last saw search on for (`searchMayBeOn`): a hint, never trusted.
    let searchedClasses = Mutex<Set<String>>([])
    /// The task that runs the client's connection pool, until `close()`.
    private let runner: Mutex<Task<Void, Never>?>

    /// A class's table and recorded field types.
    struct ClassEntry: Sendable {
        var table: String
        var fields: [String: FieldType]
    }

    /// Connects to the database at `location`, creating the schema and tables that are missing.
    ///
    /// - Parameter budget: how long each statement may run before the server cancels it (124).
    /// - Throws: 511 when the database can't be reached.
    public init(
        location: PostgresLocation, budget: StatementBudget = StatementBudget(),
        logger: Logger = Logger(label: "functionhost.postgres")
    ) async throws {
        var configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: try Self.tls(location.tls))
        configuration.options.maximumConnections = location.poolSize
        configuration.options.connectTimeout = .seconds(5)
        // Every statement of every pooled connection runs under the budget: the server cancels
        // one past it (SQLSTATE 57014), whoever sent it.
        configuration.options.additionalStartupParameters = [("statement_timeout", String(budget.milliseconds))]
        if let schema = location.schema {
            // Unqualified names then resolve in the schema: every statement below stays the same.
            configuration.options.additionalStartupParameters.append(("search_path", schema))
        }
        try await Self.probe(location, logger: logger)
        // The pool warns when a lease precedes `run()` (ours may, by a few microseconds: the task
        // below starts it); its errors still reach the log, and the engine reports its own.
        var background = logger
        background.logLevel = .error
        let client = PostgresClient(configuration: configuration, backgroundLogger: background)
        self.client = client
        self.logger = logger
        runner = Mutex(Task { await client.run() })
        catalog = Mutex([:])
        do {
            try await migrate(schema: location.schema)
            let entries = try await loadCatalog()
            catalog.withLock { $0 = entries }
            await ensureUniqueIndexes()
        } catch {
            await close()
            throw error
        }
    }

    /// Connects once, so that a host pointed at a database it can't reach says so at start
    /// (the pool would retry quietly for a minute before failing requests).
    private static func probe(_ location: PostgresLocation, logger: Logger) async throws {
        let tls: PostgresConnection.Configuration.TLS
        switch location.tls {
        case .disable: tls = .disable
        case .prefer: tls = .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: tls = .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.username, password: location.password,
            database: location.database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        do {
            let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
            try? await connection.close()
        } catch {
            let failure = Failure(error)
            if failure.sqlState == nil || failure.isConnectionLoss {
                throw DataAPIError(.temporarilyUnavailable, "The database is unavailable; try again.")
            }
            throw DataAPIError(.storageFailure, "PostgreSQL refused the connection: \(failure.sqlState ?? "") \((error as? PSQLError)?.serverInfo?[.message] ?? "")")
        }
    }

    /// Closes every connection; the engine can't be used after it.
    public func close() async {
        guard let task = runner.withLock({ task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }) else { return }
        task.cancel()
        await task.value
    }

    private static func tls(_ mode: PostgresLocation.TLSMode) throws -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: return .disable
        case .prefer: return .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()).configuration)
        case .require: return .require(try NIOSSLContext(configuration: .makeClientConfiguration()).configuration)
        }
    }

    /// Creates what is missing, under an advisory lock: hosts starting together would otherwise
    /// race on `CREATE ... IF NOT EXISTS`, which is not atomic in PostgreSQL.
    private func migrate(schema: String?) async throws {
        try await transaction { connection in
            // Not a request's statement: hosts (or tests) starting together queue on the lock
            // below for as long as the others' migrations take.
            try await connection.run(SQL("SET LOCAL statement_timeout = 0"))
            try await connection.run(SQL("SELECT pg_advisory_xact_lock(727462)"))
            if let schema { try await connection.run(SQL("CREATE SCHEMA IF NOT EXISTS \"\(schema)\"")) }
            for statement in PostgresSchema.statements { try await connection.run(SQL(statement)) }
        }
    }

    private func loadCatalog() async throws -> [String: ClassEntry] {
        var entries: [String: ClassEntry] = [:]
        for row in try await rows(SQL("SELECT id::text, name FROM fh_classes")) {
            entries[row[1]] = ClassEntry(table: "o_\(row[0])", fields: [:])
        }
        for row in try await rows(SQL("SELECT class, name, type FROM fh_fields")) {
            if let type = FieldType(rawValue: row[2]) { entries[row[0]]?.fields[row[1]] = type }
        }
        return entries
    }

    /// The entry of a class, from the catalog or the database; nil when the class doesn't exist.
    ///
    /// With `refresh`, the fields are read again from the database even when the class is known:
    /// what a write does before it checks its fields' types, since another host may have
    /// recorded a field this one has not seen.
    func entry(_ className: String, on connection: PostgresConnection? = nil, refresh: Bool = false) async throws
        -> ClassEntry?
    {
        if !refresh, let cached = catalog.withLock({ $0[className] }) { return cached }
        let query = SQL("SELECT id::text FROM fh_classes WHERE name = ?", [className])
        guard let id = try await rows(query, on: connection).first?[0] else { return nil }
        var entry = ClassEntry(table: "o_\(id)", fields: [:])
        let fields = SQL("SELECT name, type FROM fh_fields WHERE class = ?", [className])
        for row in try await rows(fields, on: connection) {
            if let type = FieldType(rawValue: row[1]) { entry.fields[row[0]] = type }
        }
        return catalog.withLock { catalog in
            if var known = catalog[className] {
                known.fields.merge(entry.fields) { recorded, _ in recorded }
                catalog[className] = known
                return known
            }
            catalog[className] = entry
            return entry
        }
    }

    /// Runs a statement on `connection` (a transaction's), or on a pooled one.
    private func rows(_ sql: SQL, on connection: PostgresConnection?) async throws -> [[String]] {
        if let connection { return try await connection.rows(sql) }
        return try await rows(sql)
    }

    /// A query compiler for a class, resolving subqueries' classes from the catalog.
    func compiler(_ className: String, _ entry: ClassEntry) -> PostgresQueryCompiler {
        PostgresQueryCompiler(className: className, fields: entry.fields, resolve: { name in
            self.catalog.withLock { $0[name] }
        })
    }

    public func classExists(_ className: String) async throws -> Bool {
        if Names.systemClasses.contains(className) { return true }
        if catalog.withLock({ $0[className] != nil }) { return true }
        return try await reading { try await self.entry(className) != nil }
    }

    public func fieldTypes(of className: String) async throws -> [String: FieldType] {
        if let known = catalog.withLock({ $0[className] }) { return known.fields }
        return try await reading { try await self.entry(className)?.fields ?? [:] }
    }

    public func isKnownClass(_ className: String) -> Bool {
        Names.systemClasses.contains(className) || catalog.withLock { $0[className] != nil }
    }

    static func decodeObject(_ row: [String], className: String) throws -> StoredObject {
        guard case .object(let fields) = try JSONValue.parsed(Array(row[3].utf8)) else {
            throw DataAPIError(.storageFailure, "A stored document is not an object.")
        }
        return StoredObject(className: className, objectId: row[0], createdAt: row[1], updatedAt: row[2], fields: fields)
    }
}
