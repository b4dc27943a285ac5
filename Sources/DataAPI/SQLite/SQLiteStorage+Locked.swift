internal import GRDB
import JSON
import Synchronization

extension SQLiteStorage {
    /// SQLite runs one write transaction at a time, and each reads what the one before it
    /// committed: the transaction itself is the lock, whatever `key` names.
    public func write(_ writes: [LockedWrite], lockedBy key: String) async throws -> [[StoredObject]] {
        let made: (results: [[StoredObject]], created: [SQLiteCreateQueue.Created])
        do {
            made = try await write { db -> ([[StoredObject]], [SQLiteCreateQueue.Created]) in
                var results: [[StoredObject]] = []
                var created: [SQLiteCreateQueue.Created] = []
                for write in writes {
                    switch write {
                    case .create(let className, var changes):
                        if changes.fields["ACL"] == nil { changes.fields["ACL"] = .set(ACL.publicReadWrite) }
                        let object = try self.insert(className, changes, db)
                        results.append([object.object])
                        created.append(object)
                    case .delete(let className, let ids):
                        results.append(try self.deleteRows(className, ids: ids, db))
                    }
                }
                return (results, created)
            }
        } catch {
            // A class this transaction made was seen (and so cached) by a later write of it, but
            // never committed: the catalog is read again, so that it holds committed facts only.
            if let entries = try? await pool.read({ db in try Self.loadCatalog(db) }) {
                catalog.withLock { $0 = entries }
            }
            throw error
        }
        for created in made.created { remember(created.object.className, created.newFields, table: created.table) }
        return made.results
    }

    /// Deletes the objects of `ids` that exist, inside the writer's transaction; answers them as
    /// they were.
    private func deleteRows(_ className: String, ids: [String], _ db: Database) throws -> [StoredObject] {
        guard let entry = try entry(className, db) else { return [] }
        var deleted: [StoredObject] = []
        for group in Self.distinctGroups(ids) {
            let marks = Self.placeholders(group.count)
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, created_at, updated_at, doc FROM \"\(entry.table)\" WHERE id IN (\(marks))",
                arguments: StatementArguments(group))
            let gone = try rows.map { try Self.decodeObject($0, className: className) }
            guard !gone.isEmpty else { continue }
            let ids = gone.map(\.objectId)
            let present = Self.placeholders(ids.count)
            try searchIndex(of: className, db)?.delete(ids: ids, db)
            try db.execute(sql: "DELETE FROM \"\(entry.table)\" WHERE id IN (\(present))", arguments: StatementArguments(ids))
            try db.execute(
                sql: "DELETE FROM relations WHERE owner_class = ? AND owner_id IN (\(present))",
                arguments: StatementArguments([className] + ids))
            deleted += gone
        }
        return deleted
    }
}
