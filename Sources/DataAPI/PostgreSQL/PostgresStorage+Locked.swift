import JSON
internal import PostgresNIO

extension PostgresStorage {
    /// The first key of the advisory locks `write(_:lockedBy:)` takes (the second is the key
    /// named, with the schema, hashed): beside the engine's others (727462-727464).
    static let lockedWriteKey = 727_465

    public func write(_ writes: [LockedWrite], lockedBy key: String) async throws -> [[StoredObject]] {
        let (results, entries) = try await transaction { connection -> ([[StoredObject]], [(String, ClassEntry)]) in
            // Held until this transaction ends: another naming the key waits here, then each of
            // its statements sees what this one committed (READ COMMITTED reads per statement).
            try await connection.run(
                SQL("SELECT pg_advisory_xact_lock(\(Self.lockedWriteKey), hashtext(current_schema()::text || ':' || ?::text))", [key]))
            var results: [[StoredObject]] = []
            var entries: [(String, ClassEntry)] = []
            for write in writes {
                switch write {
                case .create(let className, var changes):
                    if changes.fields["ACL"] == nil { changes.fields["ACL"] = .set(ACL.publicReadWrite) }
                    let (object, entry) = try await self.insert(className, changes, connection)
                    results.append([object])
                    entries.append((className, entry))
                case .delete(let className, let ids):
                    results.append(try await self.deleteRows(className, ids: ids, connection))
                }
            }
            return (results, entries)
        }
        for (className, entry) in entries { remember(className, entry) }
        return results
    }

    /// Deletes the objects of `ids` that exist, inside a transaction; answers them as they were.
    private func deleteRows(_ className: String, ids: [String], _ connection: PostgresConnection) async throws -> [StoredObject] {
        guard let entry = try await entry(className, on: connection) else { return [] }
        var deleted: [StoredObject] = []
        for group in Self.distinctGroups(ids) {
            let rows = try await connection.rows(
                SQL(
                    """
                    DELETE FROM "\(entry.table)" WHERE id IN (\(Self.placeholders(group.count)))
                    RETURNING id, created_at, updated_at, doc::text
                    """, group))
            let gone = try rows.map { try Self.decodeObject($0, className: className) }
            guard !gone.isEmpty else { continue }
            try await connection.run(
                SQL(
                    "DELETE FROM fh_relations WHERE owner_class = ? AND owner_id IN (\(Self.placeholders(gone.count)))",
                    [className] + gone.map(\.objectId)))
            deleted += gone
        }
        return deleted
    }
}
