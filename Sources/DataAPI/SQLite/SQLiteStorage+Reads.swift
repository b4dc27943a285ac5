internal import GRDB
import Synchronization

extension SQLiteStorage {
    public func fetch(_ className: String, id: String) async throws -> StoredObject? {
        try await read { db in
            guard let entry = try self.entry(className, db),
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT id, created_at, updated_at, doc FROM \"\(entry.table)\" WHERE id = ?"),
                    arguments: [id])
            else { return nil }
            return try Self.decodeObject(row, className: className)
        }
    }

    public func fetch(_ className: String, ids: [String], charging budget: AnswerBudget?) async throws -> [StoredObject] {
        if ids.isEmpty { return [] }
        return try await read { db in
            guard let entry = try self.entry(className, db) else { return [] }
            var objects: [StoredObject] = []
            // Bounded batches keep each statement under SQLite's variable limit.
            for start in stride(from: 0, to: ids.count, by: 500) {
                let batch = Array(ids[start..<min(start + 500, ids.count)])
                let placeholders = Array(repeating: "?", count: batch.count).joined(separator: ",")
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT id, created_at, updated_at, doc FROM \"\(entry.table)\" WHERE id IN (\(placeholders))",
                    arguments: StatementArguments(batch))
                try Self.decode(rows, className: className, charging: budget, into: &objects)
            }
            return objects
        }
    }

    public func find(_ query: ObjectQuery, charging budget: AnswerBudget?) async throws -> [StoredObject] {
        try await prepareIndexes(for: query)
        return try await read { db in
            guard let entry = try self.entry(query.className, db) else { return [] }
            let compiler = self.compiler(query.className, entry, db)
            let condition = query.predicate.map(compiler.compile) ?? .init(sql: "1")
            let order = compiler.orderClause(query.order, predicate: query.predicate)
            let sql = """
                SELECT id, created_at, updated_at, doc FROM "\(entry.table)"
                WHERE \(condition.sql) \(order.sql) LIMIT ? OFFSET ?
                """
            let arguments = condition.arguments + order.arguments + [query.limit.databaseValue, query.skip.databaseValue]
            var objects: [StoredObject] = []
            let rows = try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments))
            try Self.decode(rows, className: query.className, charging: budget, into: &objects)
            return objects
        }
    }

    /// Decodes rows one step of the statement at a time, charging each to `budget` before it is
    /// kept: a refusal ends the statement there, so the rest of the rows are never read.
    private static func decode(
        _ rows: RowCursor, className: String, charging budget: AnswerBudget?, into objects: inout [StoredObject]
    ) throws {
        while let row = try rows.next() {
            let doc: String = row["doc"]
            try budget?.chargeRow(documentBytes: doc.utf8.count)
            objects.append(try decodeObject(row, document: doc, className: className))
        }
    }

    public func scan(
        _ className: String, predicate: QueryPredicate?, after cursor: String?, limit: Int
    ) async throws -> [StoredObject] {
        try await read { db in
            guard let entry = try self.entry(className, db) else { return [] }
            let condition = predicate.map(self.compiler(className, entry, db).compile) ?? .init(sql: "1")
            // The unique index on id makes each page a range read, however large the class.
            let sql = """
                SELECT id, created_at, updated_at, doc FROM "\(entry.table)"
                WHERE id > ? AND (\(condition.sql)) ORDER BY id LIMIT ?
                """
            let arguments = [(cursor ?? "").databaseValue] + condition.arguments + [limit.databaseValue]
            return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
                try Self.decodeObject(row, className: className)
            }
        }
    }

    public func count(_ query: ObjectQuery) async throws -> Int {
        try await prepareIndexes(for: query)
        return try await read { db in
            guard let entry = try self.entry(query.className, db) else { return 0 }
            let condition = query.predicate.map(self.compiler(query.className, entry, db).compile) ?? .init(sql: "1")
            return try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM \"\(entry.table)\" WHERE \(condition.sql)",
                arguments: StatementArguments(condition.arguments)) ?? 0
        }
    }
}

extension SQLiteStorage {
    /// Creates the indexes the query's fields need before it runs.
    func prepareIndexes(for query: ObjectQuery) async throws {
        guard let entry = catalog.withLock({ $0[query.className] }) else { return }
        let expressions = SQLiteIndexer.expressions(for: query, fields: entry.fields)
        if expressions.isEmpty { return }
        do {
            try await indexer.ensureIndexes(
                table: entry.table, expressions: expressions, byMaster: query.fromMaster, pool: pool)
        } catch {
            throw DataAPIError(.storageFailure, "The storage engine failed to create an index.")
        }
    }
}
