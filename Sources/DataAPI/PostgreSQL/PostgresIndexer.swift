internal import PostgresNIO
import Synchronization

/// Creates the indexes queries use, the first time a query needs them: a B-tree on each
/// top-level field of scalar, Date or Pointer type that is compared or sorted on (over the very
/// expression the compiler writes), and a GIN index (`jsonb_path_ops`) on the document when a
/// query asks whether an array holds a value.
///
/// Indexes persist in the database; several hosts asking at once is harmless
/// (`CREATE INDEX IF NOT EXISTS`, and a host that loses the race just finds the index there).
final class PostgresIndexer: Sendable {
    /// An index a query needs: its name suffix and what follows `ON table` (method and columns).
    struct Need: Sendable, Hashable {
        var name: String
        var definition: String
    }

    /// Index names known to exist, so the common path sends nothing.
    private let ensured = Mutex<Set<String>>([])

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

    /// Creates the indexes of `needs` on `table` that don't exist yet.
    func ensure(_ needs: [Need], table: String, client: PostgresClient) async throws {
        let missing = needs.filter { need in !ensured.withLock { $0.contains("\(table)_\(need.name)") } }
        for need in missing {
            let name = "\(table)_\(need.name)"
            let statement = "CREATE INDEX IF NOT EXISTS \"\(name)\" ON \"\(table)\" \(need.definition)"
            do {
                try await client.query(SQL(statement).query, logger: PostgresStorage.quiet).texts()
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" || error.serverInfo?[.sqlState] == "42P07" {
                // Another host created it at the same moment.
            }
            ensured.withLock { _ = $0.insert(name) }
        }
    }

    /// Forgets the indexes known on `table` (after one was dropped), so queries create them again.
    func forget(table: String) {
        ensured.withLock { set in set = set.filter { !$0.hasPrefix(table + "_") } }
    }
}
