internal import GRDB
import JSON
package import Logging
import Synchronization

/// The embedded storage engine: one SQLite file in WAL mode, a table per class, documents as
/// JSON text queried with SQLite's JSON functions.
///
/// Reads run concurrently on GRDB's reader connections, off Swift's cooperative threads; writes are serialized by SQLite's single
/// writer, and each write is one transaction (read, apply operations, check types, write), which
/// is what makes operations such as Increment atomic.
package final class SQLiteStorage: StorageEngine {
    let pool: DatabasePool
    /// What is known of each class: its table and its fields' types. Only committed facts enter
    /// it, so a miss is answered from the database and a hit is always right.
    let catalog: Mutex<[String: ClassEntry]>
    /// Creates the expression indexes queries need.
    let indexer = SQLiteIndexer()
    /// How long each read or write may run.
    let budget: StatementBudget
    /// Creates waiting for the writer, committed in groups (`SQLiteCreateQueue`).
    let creates = SQLiteCreateQueue()
    /// The full-text index of each class search is on for, by class: what every write of the
    /// class keeps current. Changed only when `setSearch` commits, on the writer's queue before
    /// the next write starts, so the writer always sees what is committed.
    let searchIndexes: Mutex<[String: SQLiteSearchIndex]>

    /// A class's table and recorded field types.
    struct ClassEntry: Sendable {
        var table: String
        var fields: [String: FieldType]
    }

    /// Opens (creating if needed) the database at `path`.
    ///
    /// `synchronous=NORMAL` in WAL mode keeps every committed write across a process crash
    /// (kill -9); only a power loss can take the last commits, at ~100× the commit rate of FULL.
    ///
    /// - Parameters:
    ///   - budget: how long each read or write may run before it is stopped (124).
    ///   - logger: hears what the database can't do but needn't stop it (`ensureUniqueIndexes`).
    public init(
        path: String, budget: StatementBudget = StatementBudget(), logger: Logger = Logger(label: "functionhost.sqlite")
    ) throws {
        self.budget = budget
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            SQLiteFunctions.install(in: db)
        }
        configuration.busyMode = .timeout(5)
        pool = try DatabasePool(path: path, configuration: configuration)
        try SQLiteSchema.migrator().migrate(pool)
        let (entries, indexes) = try pool.read { db in (try Self.loadCatalog(db), try Self.loadSearchIndexes(db)) }
        catalog = Mutex(entries)
        searchIndexes = Mutex(indexes)
        ensureUniqueIndexes(logger: logger)
    }

    static func loadCatalog(_ db: Database) throws -> [String: ClassEntry] {
        var entries: [String: ClassEntry] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, name FROM classes") {
            let name: String = row["name"]
            entries[name] = ClassEntry(table: "o_\(row["id"] as Int64)", fields: [:])
        }
        for row in try Row.fetchAll(db, sql: "SELECT class, name, type FROM fields") {
            let className: String = row["class"]
            if let type = FieldType(rawValue: row["type"]) { entries[className]?.fields[row["name"]] = type }
        }
        return entries
    }

    /// The entry of a class, from the catalog or the database; nil when the class doesn't exist.
    func entry(_ className: String, _ db: Database) throws -> ClassEntry? {
        if let cached = catalog.withLock({ $0[className] }) { return cached }
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM classes WHERE name = ?", arguments: [className])
        else { return nil }
        var entry = ClassEntry(table: "o_\(id)", fields: [:])
        for row in try Row.fetchAll(db, sql: "SELECT name, type FROM fields WHERE class = ?", arguments: [className]) {
            if let type = FieldType(rawValue: row["type"]) { entry.fields[row["name"]] = type }
        }
        // Merge, never replace: a writer may have recorded fields this reader's snapshot predates.
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

    /// The recorded type of a field, asking the database when the catalog hasn't seen it.
    func fieldType(_ className: String, _ field: String, _ entry: ClassEntry, _ db: Database) -> FieldType? {
        if let type = entry.fields[field] { return type }
        let raw = try? String.fetchOne(
            db, sql: "SELECT type FROM fields WHERE class = ? AND name = ?", arguments: [className, field])
        return raw.flatMap(FieldType.init(rawValue:))
    }

    /// A query compiler for a class, resolving subqueries' classes on the same connection.
    func compiler(_ className: String, _ entry: ClassEntry, _ db: Database) -> SQLiteQueryCompiler {
        SQLiteQueryCompiler(className: className, fields: entry.fields, resolve: { try? self.entry($0, db) })
    }

    /// Runs `body` as a write transaction within the statement budget, turning SQLite failures
    /// into error 304.
    ///
    /// Writes wait for SQLite's single writer without holding a thread: GRDB's async API queues
    /// them. (Run inline, concurrent writers blocked both cooperative threads and create/s fell
    /// by two thirds on two cores.)
    func write<T: Sendable>(
        budget: StatementBudget? = nil, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        let budget = budget ?? self.budget
        do {
            return try await pool.write { db in try SQLiteStatementWatch.run(db, budget: budget, body) }
        } catch {
            throw Self.writeError(error)
        }
    }

    /// What a client is told of a write's failure.
    static func writeError(_ error: any Error) -> any Error {
        switch error {
        case let error as DataAPIError:
            return error
        case let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE:
            // A unique field's value taken (`UniqueFields`), else an objectId given by the caller.
            return UniqueFields.violation(sqliteMessage: error.message)
                ?? DataAPIError(.duplicateValue, "An object with this objectId already exists.")
        case let error as DatabaseError where error.message == RegexCache.timeout.message:
            // A conditional write's `where` with a `$regex` that ran out of time.
            return RegexCache.timeout
        case let error as CancellationError:
            return error
        default:
            return DataAPIError(.storageFailure, "The storage engine failed to write.")
        }
    }

    /// Runs `body` on a reader connection within the statement budget, turning SQLite failures
    /// into 304.
    ///
    /// The read runs on GRDB's reader queue, never on the calling task's thread: Swift's
    /// cooperative pool has one thread per core, and a few slow reads run inline there froze
    /// every other request, the health check included. Reads skip GRDB's transaction wrapper:
    /// each read here is one statement (or independent ones, like an include's batches), and
    /// SQLite gives every statement a consistent snapshot by itself.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let budget = self.budget
        do {
            return try await pool.unsafeRead { db in try SQLiteStatementWatch.run(db, budget: budget, body) }
        } catch let error as DataAPIError {
            throw error
        } catch let error as DatabaseError where error.message == RegexCache.timeout.message {
            throw RegexCache.timeout
        } catch let error as CancellationError {
            throw error
        } catch {
            throw DataAPIError(.storageFailure, "The storage engine failed to read.")
        }
    }

    public func classExists(_ className: String) async throws -> Bool {
        if Names.systemClasses.contains(className) { return true }
        if catalog.withLock({ $0[className] != nil }) { return true }
        return try await read { db in try self.entry(className, db) != nil }
    }

    public func fieldTypes(of className: String) async throws -> [String: FieldType] {
        if let known = catalog.withLock({ $0[className] }) { return known.fields }
        return try await read { db in try self.entry(className, db)?.fields ?? [:] }
    }

    /// Whether a class is known, from the catalog alone (no I/O): what pointer checks use.
    public func isKnownClass(_ className: String) -> Bool {
        Names.systemClasses.contains(className) || catalog.withLock { $0[className] != nil }
    }

    static func decodeObject(_ row: Row, className: String) throws -> StoredObject {
        try decodeObject(row, document: row["doc"], className: className)
    }

    /// `decodeObject(_:className:)` with the row's document already read.
    static func decodeObject(_ row: Row, document doc: String, className: String) throws -> StoredObject {
        guard case .object(let fields) = try JSONValue.parsed(Array(doc.utf8)) else {
            throw DataAPIError(.storageFailure, "A stored document is not an object.")
        }
        return StoredObject(
            className: className, objectId: row["id"], createdAt: row["created_at"], updatedAt: row["updated_at"],
            fields: fields)
    }
}
