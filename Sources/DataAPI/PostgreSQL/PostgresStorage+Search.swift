import JSON
internal import PostgresNIO
import Synchronization

/// Full-text search on PostgreSQL: its own text search (`tsvector`, `tsquery`, a GIN index,
/// `ts_rank`) over the tokens of the one Swift analyzer (`PostgresSearchText`).
///
/// A class search is on for has a row in `fh_search` and a search table (`o_<id>_search`: one
/// row per object, its vector). Writes keep it current in their own transaction, each reading the
/// settings AFTER its row write: the write then holds the class table's ROW EXCLUSIVE lock, which
/// `setSearch` (SHARE ROW EXCLUSIVE, taken before it reads or changes anything) conflicts with.
/// So either the write came first, and the build, which waits for it, reads its committed row;
/// or `setSearch` came first, the write waited for its commit, and its read of the settings, a
/// later statement, sees them. No host can miss that another turned search on. Deletes need no
/// step of their own: the search row references the object's, `ON DELETE CASCADE`.
extension PostgresStorage {
    package func searchSettings() async throws -> [SearchSettings] {
        try await reading {
            try await rows(SQL("SELECT class, fields::text FROM fh_search ORDER BY class")).map { row in
                SearchSettings(className: row[0], fields: try Self.fieldList(row[1]))
            }
        }
    }

    package func setSearch(_ className: String, to settings: SearchSettings?) async throws {
        if let settings { try Self.validate(settings) }
        let fields = settings?.fields
        let entry = try await transaction { connection -> ClassEntry? in
            // A build reads and indexes every object of the class, in batches of bounded memory;
            // like an index build (`PostgresIndexer`) it takes the time it takes.
            try await connection.run(SQL("SET LOCAL statement_timeout = 0"))
            // Changes of settings take turns across hosts, so the cap on classes holds.
            try await connection.run(SQL("SELECT pg_advisory_xact_lock(727464)"))
            let current = try await self.searchFields(className, connection)
            guard let fields else {
                guard current != nil else { return nil }
                if let entry = try await self.entry(className, on: connection, refresh: true) {
                    try await Self.lockForSearch(entry.table, connection)
                    try await connection.run(SQL("DROP TABLE IF EXISTS \"\(PostgresSchema.searchTable(entry.table))\""))
                }
                try await connection.run(SQL("DELETE FROM fh_search WHERE class = ?", [className]))
                return nil
            }
            if current == nil {
                let count = try await connection.rows(SQL("SELECT COUNT(*)::text FROM fh_search")).first.flatMap { Int($0[0]) }
                if let count, count >= SearchSettings.maxClasses { throw Self.tooManySearchedClasses }
            }
            // A class search is on for exists, so that a create making it finds its search table.
            let entry: ClassEntry
            if let existing = try await self.entry(className, on: connection, refresh: true) {
                entry = existing
            } else {
                entry = try await self.createClass(className, connection)
            }
            if current == fields { return entry }
            try await Self.lockForSearch(entry.table, connection)
            try await connection.run(
                SQL(
                    "INSERT INTO fh_search (class, fields) VALUES (?, ?::jsonb) ON CONFLICT (class) DO UPDATE SET fields = EXCLUDED.fields",
                    [className, JSONValue.array(fields.map { .string($0) }).jsonString]))
            try await connection.run(SQL("DROP TABLE IF EXISTS \"\(PostgresSchema.searchTable(entry.table))\""))
            try await connection.run(SQL(PostgresSchema.createSearchTable(entry.table)))
            try await self.buildSearchTable(entry.table, indexed: fields, connection)
            for statement in PostgresSchema.finishSearchTable(entry.table) { try await connection.run(SQL(statement)) }
            return entry
        }
        if let entry { remember(className, entry) }
        noteSearch(className, on: fields != nil)
    }

    package func search(_ plan: SearchPlan) async throws -> SearchMatches {
        try await prepareSubqueries(plan.restriction)
        for predicate in Self.conditions(of: plan.expression) { try await prepareSubqueries(predicate) }
        return try await reading {
            let settings = try await self.rows(SQL("SELECT fields::text FROM fh_search WHERE class = ?", [plan.className]))
            guard let stored = settings.first, let entry = try await self.entry(plan.className) else {
                self.noteSearch(plan.className, on: false)
                throw Self.searchIsOff
            }
            let compiler = PostgresSearchCompiler(
                indexed: try Self.fieldList(stored[0]), conditions: self.compiler(plan.className, entry))
            var condition = compiler.condition(plan.expression)
            if let restriction = plan.restriction {
                let fragment = compiler.conditions.compile(restriction)
                condition = SQL("(\(condition.text)) AND (\(fragment.text))", condition.binds + fragment.binds)
            }
            let from = "FROM \"\(entry.table)\" JOIN \"\(PostgresSchema.searchTable(entry.table))\" ON object_id = id"
            do {
                guard plan.window > 0 else {
                    let count = try await self.rows(SQL("SELECT COUNT(*)::text \(from) WHERE \(condition.text)", condition.binds))
                    return SearchMatches(ids: [], hits: count.first.flatMap { Int($0[0]) } ?? 0)
                }
                let order = compiler.order(plan.order, rank: compiler.rank(plan.expression))
                // The count is over every match, before the LIMIT: one statement, one snapshot.
                let rows = try await self.rows(
                    SQL(
                        "SELECT id, (COUNT(*) OVER ())::text \(from) WHERE \(condition.text) \(order.text) LIMIT ?::bigint",
                        condition.binds + order.binds + [String(plan.window)]))
                return SearchMatches(ids: rows.map { $0[0] }, hits: rows.first.flatMap { Int($0[1]) } ?? 0)
            } catch where Failure(error).sqlState == "42P01" {
                // Search was turned off between the settings' read and the query.
                throw Self.searchIsOff
            }
        }
    }

    /// In a write's transaction, after its row write (see the type's comment): the fields search
    /// indexes for the class now, nil when search is off for it.
    func searchFields(_ className: String, _ connection: PostgresConnection) async throws -> [String]? {
        let row = try await connection.rows(SQL("SELECT fields::text FROM fh_search WHERE class = ?", [className])).first
        let fields = try row.map { try Self.fieldList($0[0]) }
        noteSearch(className, on: fields != nil)
        return fields
    }

    /// Writes (or rewrites) the search rows of objects, in a write's transaction.
    func writeSearchRows(
        _ objects: [(id: String, fields: [String: JSONValue])], table: String, indexed: [String],
        _ connection: PostgresConnection
    ) async throws {
        for start in stride(from: 0, to: objects.count, by: Self.searchBatch) {
            var insert = SQL("INSERT INTO \"\(PostgresSchema.searchTable(table))\" (object_id, tsv) VALUES ")
            for (index, object) in objects[start..<min(start + Self.searchBatch, objects.count)].enumerated() {
                insert.text += index == 0 ? "(?, ?::tsvector)" : ", (?, ?::tsvector)"
                insert.binds += [object.id, PostgresSearchText.vector(of: object.fields, indexed: indexed)]
            }
            insert.text += " ON CONFLICT (object_id) DO UPDATE SET tsv = EXCLUDED.tsv"
            try await connection.run(insert)
        }
    }

    /// Whether search is on for a class, as this host last saw: only a hint, which sends the
    /// creates of a searched class straight to the transaction that indexes them. The
    /// one-statement create checks the settings itself, so a stale hint costs a round trip,
    /// never a missed row.
    func searchMayBeOn(_ className: String) -> Bool {
        searchedClasses.withLock { $0.contains(className) }
    }

    /// Records what a read of a class's settings found (`searchMayBeOn`).
    func noteSearch(_ className: String, on: Bool) {
        searchedClasses.withLock { classes in
            if on { classes.insert(className) } else { classes.remove(className) }
        }
    }

    /// Objects read, and search rows written, per statement.
    private static let searchBatch = 500

    /// Fills a new search table from every object of the class, in id order, a batch at a time.
    private func buildSearchTable(_ table: String, indexed: [String], _ connection: PostgresConnection) async throws {
        var after = ""
        while true {
            let rows = try await connection.rows(
                SQL(
                    "SELECT id, doc::text FROM \"\(table)\" WHERE id > ? ORDER BY id LIMIT ?::bigint",
                    [after, String(Self.searchBatch)]))
            guard let last = rows.last else { return }
            var objects: [(id: String, fields: [String: JSONValue])] = []
            for row in rows {
                guard case .object(let fields) = try JSONValue.parsed(Array(row[1].utf8)) else {
                    throw DataAPIError(.storageFailure, "A stored document is not an object.")
                }
                objects.append((row[0], fields))
            }
            try await writeSearchRows(objects, table: table, indexed: indexed, connection)
            if rows.count < Self.searchBatch { return }
            after = last[0]
        }
    }

    /// Takes the lock that orders a change of search settings with the class's writes (see the
    /// type's comment): it conflicts with theirs and with itself, not with reads.
    private static func lockForSearch(_ table: String, _ connection: PostgresConnection) async throws {
        try await connection.run(SQL("LOCK TABLE \"\(table)\" IN SHARE ROW EXCLUSIVE MODE"))
    }

    /// The conditions of a search expression (their subqueries' classes must be in the catalog).
    private static func conditions(of expression: SearchExpression) -> [QueryPredicate] {
        switch expression {
        case .condition(let predicate): return [predicate]
        case .not(let inner): return conditions(of: inner)
        case .and(let parts), .or(let parts): return parts.flatMap(conditions)
        case .text, .everything: return []
        }
    }

    /// The field names of a stored `fields` array.
    private static func fieldList(_ text: String) throws -> [String] {
        guard let items = try JSONValue.parsed(Array(text.utf8)).arrayValue else {
            throw DataAPIError(.storageFailure, "The search settings of a class are not a list.")
        }
        return items.compactMap(\.stringValue)
    }

    /// Refuses settings the index can't hold: the service checks them for the client first, and
    /// the engine does again, since a field name is part of each lexeme.
    private static func validate(_ settings: SearchSettings) throws {
        guard settings.fields.count <= SearchSettings.maxFields else {
            throw DataAPIError(.invalidQuery, "Search indexes at most \(SearchSettings.maxFields) fields of a class.")
        }
        for field in settings.fields where field == "ACL" || !Names.isValidFieldName(field) {
            throw DataAPIError(.invalidKeyName, "Search can't index the field \(field).")
        }
    }

    /// What a search of a class search isn't on for answers.
    static let searchIsOff = DataAPIError(.objectNotFound, "Search is not on for this class.")

    /// What turning search on for one class too many answers.
    static let tooManySearchedClasses = DataAPIError(
        .operationForbidden,
        "Search is on for \(SearchSettings.maxClasses) classes, the most; turn it off for one first.")
}
