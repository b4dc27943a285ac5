internal import GRDB

extension SQLiteStorage: IndexAdministration {
    public func indexes(of className: String?) async throws -> [ClassIndex] {
        try await read { db in
            let names = try className.map { [$0] } ?? String.fetchAll(db, sql: "SELECT name FROM classes ORDER BY name")
            var result: [ClassIndex] = []
            for name in names {
                guard let entry = try self.entry(name, db) else { throw ClassIndex.noSuchClass }
                let rows = try Row.fetchAll(
                    db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name",
                    arguments: [entry.table])
                for row in rows {
                    let full: String = row["name"]
                    let sql: String? = row["sql"]
                    result.append(
                        ClassIndex(
                            className: name, name: ClassIndex.shortName(full, table: entry.table),
                            automatic: ClassIndex.isAutomatic(full, table: entry.table),
                            // SQLite makes the index of a UNIQUE column itself, without SQL.
                            definition: sql.map { ClassIndex.definition($0) } ?? "UNIQUE (id)"))
                }
            }
            return result
        }
    }

    public func dropIndex(_ className: String, name: String) async throws {
        let table = try await write { db -> String in
            guard let entry = try self.entry(className, db) else { throw ClassIndex.noSuchClass }
            let full = "\(entry.table)_\(name)"
            let exists = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name = ?",
                arguments: [entry.table, full]) ?? false
            guard exists, ClassIndex.isAutomatic(full, table: entry.table) else { throw ClassIndex.notDroppable(name) }
            try db.execute(sql: "DROP INDEX \"\(full)\"")
            return entry.table
        }
        indexer.forget(table: table)
    }
}
