internal import GRDB

/// Creates expression indexes on the fields queries filter and sort on, once they are queried
/// often (or by the master key), so that equality and range queries stay index lookups as
/// classes grow; at most `AutomaticIndexes.perClass` per class.
///
/// Building an index on 200 000 documents takes ~0.3 s here, paid once by the query that makes
/// it due; indexes persist in the database file.
final class SQLiteIndexer: Sendable {
    /// Which indexes are due, and which are known to exist.
    private let automatic = AutomaticIndexes()

    /// The indexable expressions a query uses: top-level fields of scalar, Date and Pointer
    /// type that it compares or sorts on.
    static func expressions(
        for query: ObjectQuery, fields: [String: FieldType]
    ) -> [(name: String, expression: String)] {
        var keys: [String] = query.order.map(\.key)
        collect(query.predicate, into: &keys)
        var result: [(String, String)] = []
        var seen: Set<String> = []
        for key in keys where !key.contains(".") && SQLiteQueryCompiler.column(for: key) == nil {
            guard let type = fields[key], seen.insert(key).inserted else { continue }
            switch type {
            case .string, .number, .boolean: result.append((key, SQLiteQueryCompiler.extract(key)))
            case .date: result.append((key, SQLiteQueryCompiler.extract(key, suffix: "iso")))
            case .pointer: result.append((key, SQLiteQueryCompiler.extract(key, suffix: "objectId")))
            default: continue
            }
        }
        return result
    }

    private static func collect(_ predicate: QueryPredicate?, into keys: inout [String]) {
        switch predicate {
        case .and(let parts)?, .or(let parts)?: for part in parts { collect(part, into: &keys) }
        case .compare(let key, _, _)?, .oneOf(let key, _, _)?: keys.append(key)
        case .matchesQuery(let key, _, _)?, .matchesKeyInQuery(let key, _, _, _)?: keys.append(key)
        default: break
        }
    }

    /// Counts a query's use of `expressions` on `table`, and creates those indexes that are now
    /// due (`AutomaticIndexes`), within the class's cap: counted inside the write transaction,
    /// which SQLite runs one at a time, so concurrent queries can't pass it together.
    func ensureIndexes(
        table: String, expressions: [(name: String, expression: String)], byMaster: Bool, pool: DatabasePool
    ) async throws {
        let wanted = expressions.map { (full: AutomaticIndexes.name(table: table, suffix: "ix_\($0.name)"), $0.expression) }
        let due = Set(automatic.due(table: table, names: wanted.map(\.full), byMaster: byMaster))
        if due.isEmpty { return }
        let outcome = try await pool.write { db -> (present: Set<String>, full: Bool) in
            let names = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", arguments: [table])
            var present = Set(names.filter { ClassIndex.isAutomatic($0, table: table) })
            let plan = AutomaticIndexes.plan(wanted.map(\.full).filter(due.contains), present: present)
            for (full, expression) in wanted where plan.create.contains(full) {
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS \"\(full)\" ON \"\(table)\" (\(expression))")
                present.insert(full)
            }
            return (present, plan.full)
        }
        automatic.settle(table: table, present: outcome.present, full: outcome.full)
    }

    /// Forgets the indexes known on `table` (after one was dropped).
    func forget(table: String) {
        automatic.forget(table: table)
    }
}
