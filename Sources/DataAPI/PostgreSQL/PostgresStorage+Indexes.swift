internal import PostgresNIO

extension PostgresStorage: IndexAdministration {
    public func indexes(of className: String?) async throws -> [ClassIndex] {
        try await reading {
            var names = className.map { [$0] } ?? []
            if className == nil { names = try await rows(SQL("SELECT name FROM fh_classes ORDER BY name")).map { $0[0] } }
            var result: [ClassIndex] = []
            for name in names {
                guard let entry = try await self.entry(name) else { throw ClassIndex.noSuchClass }
                let rows = try await self.rows(
                    SQL(
                        """
                        SELECT indexname, indexdef FROM pg_indexes
                        WHERE schemaname = current_schema() AND tablename = ? ORDER BY indexname
                        """, [entry.table]))
                for row in rows {
                    result.append(
                        ClassIndex(
                            className: name, name: ClassIndex.shortName(row[0], table: entry.table),
                            automatic: ClassIndex.isAutomatic(row[0], table: entry.table),
                            definition: ClassIndex.definition(row[1])))
                }
            }
            return result
        }
    }

    public func dropIndex(_ className: String, name: String) async throws {
        guard let entry = try await reading({ try await self.entry(className) }) else { throw ClassIndex.noSuchClass }
        let full = "\(entry.table)_\(name)"
        try await transaction { connection in
            // The lock automatic indexes are created under, so a host counting them waits.
            try await connection.run(SQL("SELECT pg_advisory_xact_lock(727463, hashtext(?))", [entry.table]))
            let exists = try await connection.rows(
                SQL(
                    "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND tablename = ? AND indexname = ?",
                    [entry.table, full]))
            guard !exists.isEmpty, ClassIndex.isAutomatic(full, table: entry.table) else {
                throw ClassIndex.notDroppable(name)
            }
            try await connection.run(SQL("DROP INDEX \"\(full)\""))
        }
        indexer.forget(table: entry.table)
    }
}
