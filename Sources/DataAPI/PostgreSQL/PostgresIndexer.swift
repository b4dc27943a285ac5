internal import PostgresNIO

/// Creates the indexes queries use, once queried often (or by the master key), at most
/// `AutomaticIndexes.perClass` per class: a B-tree on each
/// top-level field of scalar, Date or Pointer type that is compared or sorted on (over the very
/// expression the compiler writes), and a GIN index (`jsonb_path_ops`) on the document when a
/// query asks whether an array holds a value.
///
/// Indexes persist in the database; hosts creating them take turns (an advisory lock per table).
final class PostgresIndexer: Sendable {
    /// An index a query needs: its name suffix and what follows `ON table` (method and columns).
    struct Need: Sendable, Hashable {
        var name: String
        var definition: String
    }

    /// Which indexes are due, and which are known to exist.
    private let automatic = AutomaticIndexes()

    /// The indexes a query on a class with these fields would use.
    static func indexes(for query: ObjectQuery, fields: [String: FieldType]) -> [Need] {
        var keys: [String] = query.order.map(\.key)
        var containment = false
        collect(query.predicate, fields: fields, into: &keys, containment: &containment)
        var needs: [Need] = []
        var seen: Set<String> = []
        let compiler = PostgresQueryCompiler(className: query.className, fields: fields, resolve: { _ in nil })
        for key in keys where !key.contains(".") && PostgresQueryCompiler.column(for: key) == nil {
            guard let type = fields[key], seen.insert(key).inserted else { continue }
            switch type {
            case .string, .number, .boolean, .date:
                guard let expression = compiler.sortExpression(key) else { continue }
                needs.append(Need(name: "ix_\(key)", definition: "((\(expression)))"))
            case .pointer:
                needs.append(Need(name: "ix_\(key)", definition: "((\(PostgresQueryCompiler.text(key, suffix: "objectId"))))"))
            default:
                continue
            }
        }
        if containment { needs.append(Need(name: "gin", definition: "USING gin (doc jsonb_path_ops)")) }
        return needs
    }

    private static func collect(
        _ predicate: QueryPredicate?, fields: [String: FieldType], into keys: inout [String], containment: inout Bool
    ) {
        switch predicate {
        case .and(let parts)?, .or(let parts)?:
            for part in parts { collect(part, fields: fields, into: &keys, containment: &containment) }
        case .compare(let key, _, _)?, .oneOf(let key, _, _)?:
            if fields[key] == .array { containment = true } else { keys.append(key) }
        case .containsAll?:
            containment = true
        case .matchesQuery(let key, _, _)?, .matchesKeyInQuery(let key, _, _, _)?:
            keys.append(key)
        default:
            break
        }
    }

    /// Counts a query's use of `needs` on `table`, and creates those indexes that are now due
    /// (`AutomaticIndexes`), within the class's cap: counted and created in one transaction under
    /// an advisory lock per table, so hosts creating at once can't pass the cap together.
    func ensure(_ needs: [Need], table: String, byMaster: Bool, storage: PostgresStorage) async throws {
        let wanted = needs.map { (full: Self.identifier(AutomaticIndexes.name(table: table, suffix: $0.name)), $0.definition) }
        let due = Set(automatic.due(table: table, names: wanted.map(\.full), byMaster: byMaster))
        if due.isEmpty { return }
        let outcome = try await storage.transaction { connection -> (present: Set<String>, full: Bool) in
            try await connection.run(SQL("SELECT pg_advisory_xact_lock(727463, hashtext(?))", [table]))
            // Building an index over a large class takes longer than any query may: the budget
            // guards requests, and this runs once per index.
            try await connection.run(SQL("SET LOCAL statement_timeout = 0"))
            let names = try await connection.rows(
                SQL("SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ?", [table]))
            var present = Set(names.map { $0[0] }.filter { ClassIndex.isAutomatic($0, table: table) })
            let plan = AutomaticIndexes.plan(wanted.map(\.full).filter(due.contains), present: present)
            for (full, definition) in wanted where plan.create.contains(full) {
                try await connection.run(SQL("CREATE INDEX IF NOT EXISTS \"\(full)\" ON \"\(table)\" \(definition)"))
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

    /// A name as PostgreSQL keeps it: cut to 63 bytes (field names are ASCII), so that the name
    /// looked for is the one `pg_indexes` lists.
    static func identifier(_ name: String) -> String {
        String(decoding: name.utf8.prefix(63), as: UTF8.self)
    }
}
