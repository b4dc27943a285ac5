internal import PostgresNIO
import Synchronization

extension PostgresStorage {
    public func fetch(_ className: String, id: String) async throws -> StoredObject? {
        try await reading {
            guard let entry = try await self.entry(className),
                let row = try await self.rows(
                    SQL("SELECT id, created_at, updated_at, doc::text FROM \"\(entry.table)\" WHERE id = ?", [id])
                ).first
            else { return nil }
            return try Self.decodeObject(row, className: className)
        }
    }

    public func fetch(_ className: String, ids: [String], charging budget: AnswerBudget?) async throws -> [StoredObject] {
        if ids.isEmpty { return [] }
        return try await reading {
            guard let entry = try await self.entry(className) else { return [] }
            var objects: [StoredObject] = []
            for start in stride(from: 0, to: ids.count, by: 500) {
                let batch = Array(ids[start..<min(start + 500, ids.count)])
                let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
                objects += try await self.objects(
                    SQL("SELECT id, created_at, updated_at, doc::text FROM \"\(entry.table)\" WHERE id IN (\(marks))", batch),
                    className: className, charging: budget)
            }
            return objects
        }
    }

    public func find(_ query: ObjectQuery, charging budget: AnswerBudget?) async throws -> [StoredObject] {
        try await prepare(query)
        return try await reading {
            guard let entry = try await self.entry(query.className) else { return [] }
            let compiler = self.compiler(query.className, entry)
            let condition = query.predicate.map(compiler.compile) ?? SQL("TRUE")
            let order = compiler.orderClause(query.order, predicate: query.predicate)
            let sql = SQL(
                """
                SELECT id, created_at, updated_at, doc::text FROM "\(entry.table)"
                WHERE \(condition.text) \(order.text) LIMIT ?::bigint OFFSET ?::bigint
                """, condition.binds + order.binds + [String(query.limit), String(query.skip)])
            return try await self.objects(sql, className: query.className, charging: budget)
        }
    }

    /// The objects a `SELECT id, created_at, updated_at, doc::text` answers, decoded as their
    /// rows arrive and each charged to `budget` first. A refusal leaves the row sequence there:
    /// postgres-nio cancels it and drops what it had buffered, so the rest is never kept. An
    /// attempt that fails otherwise gives its charge back (`reading` may run it again).
    private func objects(_ sql: SQL, className: String, charging budget: AnswerBudget?) async throws -> [StoredObject] {
        var objects: [StoredObject] = []
        var charged = AnswerWeight.zero
        do {
            for try await row in try await client.query(sql.query, logger: Self.quiet) {
                let cells = row.texts
                let documentBytes = cells.count > 3 ? cells[3].utf8.count : 0
                try budget?.chargeRow(documentBytes: documentBytes)
                charged = charged + .row(documentBytes: documentBytes)
                objects.append(try Self.decodeObject(cells, className: className))
            }
        } catch let error as DataAPIError {
            throw error
        } catch {
            budget?.refund(charged)
            throw error
        }
        return objects
    }

    public func scan(
        _ className: String, predicate: QueryPredicate?, after cursor: String?, limit: Int
    ) async throws -> [StoredObject] {
        try await prepareSubqueries(predicate)
        return try await reading {
            guard let entry = try await self.entry(className) else { return [] }
            let condition = predicate.map(self.compiler(className, entry).compile) ?? SQL("TRUE")
            // The unique index on id makes each page a range read, however large the class.
            let sql = SQL(
                """
                SELECT id, created_at, updated_at, doc::text FROM "\(entry.table)"
                WHERE id > ? AND (\(condition.text)) ORDER BY id LIMIT ?::bigint
                """, [cursor ?? ""] + condition.binds + [String(limit)])
            return try await self.rows(sql).map { try Self.decodeObject($0, className: className) }
        }
    }

    public func count(_ query: ObjectQuery) async throws -> Int {
        try await prepare(query)
        return try await reading {
            guard let entry = try await self.entry(query.className) else { return 0 }
            let condition = query.predicate.map(self.compiler(query.className, entry).compile) ?? SQL("TRUE")
            let rows = try await self.rows(
                SQL("SELECT COUNT(*)::text FROM \"\(entry.table)\" WHERE \(condition.text)", condition.binds))
            return rows.first.flatMap { Int($0[0]) } ?? 0
        }
    }

    /// Before a query runs: the classes of its subqueries in the catalog (the compiler reads
    /// them from it), and the indexes its fields need.
    private func prepare(_ query: ObjectQuery) async throws {
        try await prepareSubqueries(query.predicate)
        guard let entry = catalog.withLock({ $0[query.className] }) else { return }
        let needs = PostgresIndexer.indexes(for: query, fields: entry.fields)
        if needs.isEmpty { return }
        try await indexer.ensure(needs, table: entry.table, byMaster: query.fromMaster, storage: self)
    }

    /// Puts the classes a condition's subqueries name in the catalog.
    func prepareSubqueries(_ predicate: QueryPredicate?) async throws {
        var names: [String] = []
        Self.collectSubqueryClasses(predicate, into: &names)
        for name in names where catalog.withLock({ $0[name] == nil }) {
            _ = try await reading { try await self.entry(name) }
        }
    }

    private static func collectSubqueryClasses(_ predicate: QueryPredicate?, into names: inout [String]) {
        switch predicate {
        case .and(let parts)?, .or(let parts)?:
            for part in parts { collectSubqueryClasses(part, into: &names) }
        case .matchesQuery(_, let subquery, _)?, .matchesKeyInQuery(_, let subquery, _, _)?:
            names.append(subquery.className)
            collectSubqueryClasses(subquery.predicate, into: &names)
        default:
            break
        }
    }
}
