internal import GRDB
import JSON
import Synchronization

extension SQLiteStorage {
    public func create(_ className: String, changes: ObjectChanges) async throws -> StoredObject {
        var changes = changes
        if changes.fields["ACL"] == nil { changes.fields["ACL"] = .set(ACL.publicReadWrite) }
        let frozen = changes
        // The first write of a class creates it alone: in a group, a later create would find the
        // new table before it committed, and cache it where concurrent readers look.
        guard catalog.withLock({ $0[className] != nil }) else {
            let created = try await write { db in try self.insert(className, frozen, db) }
            remember(className, created.newFields, table: created.table)
            return created.object
        }
        let created = try await creates.create(
            { db in try self.insert(className, frozen, db) }, commit: { inserts in try await self.commit(inserts) })
        remember(className, created.newFields, table: created.table)
        return created.object
    }

    /// Inserts a new object, inside the writer's transaction.
    func insert(_ className: String, _ changes: ObjectChanges, _ db: Database) throws -> SQLiteCreateQueue.Created {
        let entry = try self.entry(className, db) ?? self.createClass(className, db)
        let write = try ObjectWrite(current: [:], changes: changes) { self.fieldType(className, $0, entry, db) }
        let now = ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds())
        let object = StoredObject(
            className: className, objectId: changes.objectId ?? ObjectID.make(), createdAt: now, updatedAt: now, fields: write.fields)
        try db.cachedStatement(
            sql: "INSERT INTO \"\(entry.table)\" (id, created_at, updated_at, doc) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [object.objectId, now, now, try write.document()])
        try searchIndex(of: className, db)?.insert(rowid: db.lastInsertedRowID, document: write.fields, db)
        try self.record(write, className: className, ownerId: object.objectId, db)
        return (object, write.newFieldTypes, entry.table)
    }

    /// Writes a group of creates in one transaction (`SQLiteCreateQueue`), each in a savepoint
    /// of its own: one that fails is rolled back alone and told why; the others commit. A
    /// statement budget spent, or a failed commit, fails them all (nothing was written).
    private func commit(_ inserts: [SQLiteCreateQueue.Insert]) async throws -> [Result<SQLiteCreateQueue.Created, any Error>] {
        guard inserts.count > 1 else {
            do {
                return [.success(try await write { db in try inserts[0](db) })]
            } catch {
                return [.failure(error)]
            }
        }
        do {
            return try await write { db in
                try inserts.map { insert -> Result<SQLiteCreateQueue.Created, any Error> in
                    do {
                        var created: SQLiteCreateQueue.Created?
                        try db.inSavepoint {
                            created = try insert(db)
                            return .commit
                        }
                        return created.map { .success($0) } ?? .failure(DataAPIError(.storageFailure, "The storage engine failed to write."))
                    } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
                        throw error
                    } catch {
                        return .failure(Self.writeError(error))
                    }
                }
            }
        } catch {
            // A class one create of the group made was seen by the next (and so cached) but never
            // committed: the catalog is read again, so that it holds committed facts only.
            if let entries = try? await pool.read({ db in try Self.loadCatalog(db) }) {
                catalog.withLock { $0 = entries }
            }
            throw error
        }
    }

    public func update(
        _ className: String, id: String, changes: ObjectChanges, condition: QueryPredicate?, check: RowCheck?
    ) async throws -> StoredObject {
        let (object, newFields) = try await write { db -> (StoredObject, [String: FieldType]) in
            guard let entry = try self.entry(className, db) else {
                throw DataAPIError(.objectNotFound, "Object not found.")
            }
            guard var object = try self.row(id, of: className, entry, db) else {
                throw DataAPIError(.objectNotFound, "Object not found.")
            }
            try check?(object)
            if let condition {
                try self.check(condition, id: id, className: className, entry: entry, db)
            }
            let write = try ObjectWrite(current: object.fields, changes: changes) {
                self.fieldType(className, $0, entry, db)
            }
            let now = ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds())
            try db.cachedStatement(sql: "UPDATE \"\(entry.table)\" SET updated_at = ?, doc = ? WHERE id = ?")
                .execute(arguments: [now, try write.document(), id])
            try self.reindex(className, id: id, old: object.fields, new: write.fields, db)
            try self.record(write, className: className, ownerId: id, db)
            object.fields = write.fields
            object.updatedAt = now
            return (object, write.newFieldTypes)
        }
        remember(className, newFields)
        return object
    }

    public func delete(_ className: String, id: String, condition: QueryPredicate?, check: RowCheck?) async throws {
        try await write { db in
            guard let entry = try self.entry(className, db) else {
                if condition != nil { throw DataAPIError.noEffect }
                return
            }
            if let check, let object = try self.row(id, of: className, entry, db) { try check(object) }
            if let condition { try self.check(condition, id: id, className: className, entry: entry, db) }
            try self.searchIndex(of: className, db)?.delete(ids: [id], db)
            try db.execute(sql: "DELETE FROM \"\(entry.table)\" WHERE id = ?", arguments: [id])
            try db.execute(
                sql: "DELETE FROM relations WHERE owner_class = ? AND owner_id = ?", arguments: [className, id])
        }
    }

    public func delete(_ className: String, ids: [String], condition: QueryPredicate?) async throws -> [String] {
        let groups = Self.distinctGroups(ids)
        guard !groups.isEmpty else { return [] }
        return try await write { db -> [String] in
            guard let entry = try self.entry(className, db) else { return [] }
            var deleted: [String] = []
            // One write transaction: SQLite runs no other write until it commits or rolls back.
            for group in groups {
                let marks = Self.placeholders(group.count)
                let present = try String.fetchAll(
                    db, sql: "SELECT id FROM \"\(entry.table)\" WHERE id IN (\(marks))", arguments: StatementArguments(group))
                if let condition, !present.isEmpty {
                    let fragment = self.compiler(className, entry, db).compile(condition)
                    let matched = try Int.fetchOne(
                        db, sql: "SELECT COUNT(*) FROM \"\(entry.table)\" WHERE id IN (\(marks)) AND (\(fragment.sql))",
                        arguments: StatementArguments(group.map(\.databaseValue) + fragment.arguments)) ?? 0
                    // One that exists and doesn't match: the throw rolls back every delete before it.
                    guard matched == present.count else { throw DataAPIError.noEffect }
                }
                guard !present.isEmpty else { continue }
                let presentMarks = Self.placeholders(present.count)
                try self.searchIndex(of: className, db)?.delete(ids: present, db)
                try db.execute(
                    sql: "DELETE FROM \"\(entry.table)\" WHERE id IN (\(presentMarks))", arguments: StatementArguments(present))
                try db.execute(
                    sql: "DELETE FROM relations WHERE owner_class = ? AND owner_id IN (\(presentMarks))",
                    arguments: StatementArguments([className] + present))
                deleted += present
            }
            let gone = Set(deleted)
            return groups.joined().filter(gone.contains)
        }
    }

    public func insertExported(
        _ className: String, objects: [StoredObject], fieldTypes: [String: FieldType], relations: [RelationMember]
    ) async throws -> Int {
        let (written, table) = try await write { db -> (Int, String?) in
            var written = 0
            var table: String?
            if !objects.isEmpty || !fieldTypes.isEmpty {
                let entry = try self.entry(className, db) ?? self.createClass(className, db)
                table = entry.table
                // An object imported already is skipped (an import runs again where it stopped);
                // one whose username or role name another holds fails, as PostgreSQL's does,
                // rather than being dropped without a word (`OR IGNORE` would skip it).
                let insert = try db.cachedStatement(
                    sql: "INSERT INTO \"\(entry.table)\" (id, created_at, updated_at, doc) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING")
                for object in objects {
                    let document = String(decoding: JSONValue.object(object.fields).jsonBytes, as: UTF8.self)
                    try insert.execute(arguments: [object.objectId, object.createdAt, object.updatedAt, document])
                    guard db.changesCount > 0 else { continue }
                    written += 1
                    try self.searchIndex(of: className, db)?.insert(rowid: db.lastInsertedRowID, document: object.fields, db)
                }
                for (field, type) in fieldTypes {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO fields (class, name, type) VALUES (?, ?, ?)",
                        arguments: [className, field, type.rawValue])
                }
            }
            for member in relations {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO relations (owner_class, field, owner_id, target_id) VALUES (?, ?, ?, ?)",
                    arguments: [className, member.field, member.ownerId, member.targetId])
            }
            return (written, table)
        }
        if let table { remember(className, fieldTypes, table: table) }
        return written
    }

    public func classNames() async throws -> [String] {
        try await read { db in try String.fetchAll(db, sql: "SELECT name FROM classes ORDER BY name") }
    }

    public func declareClass(_ className: String, fieldTypes: [String: FieldType]) async throws -> Bool {
        let (entry, created) = try await write { db -> (ClassEntry, Bool) in
            let existing = try self.entry(className, db)
            var entry = try existing ?? self.createClass(className, db)
            for (field, type) in fieldTypes.sorted(by: { $0.key < $1.key }) {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO fields (class, name, type) VALUES (?, ?, ?)",
                    arguments: [className, field, type.rawValue])
                let recorded = try String.fetchOne(
                    db, sql: "SELECT type FROM fields WHERE class = ? AND name = ?", arguments: [className, field])
                if let recorded, recorded != type.rawValue { throw FieldType.conflict(field, recorded: recorded, given: type) }
                entry.fields[field] = type
            }
            return (entry, existing == nil)
        }
        remember(className, entry.fields, table: entry.table)
        return created
    }

    /// The object `id` as the write's transaction reads it.
    private func row(_ id: String, of className: String, _ entry: ClassEntry, _ db: Database) throws -> StoredObject? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT id, created_at, updated_at, doc FROM \"\(entry.table)\" WHERE id = ?"),
            arguments: [id])
        else { return nil }
        return try Self.decodeObject(row, className: className)
    }

    /// Throws 305 unless the object `id` matches `condition`, inside the write's transaction.
    private func check(
        _ condition: QueryPredicate, id: String, className: String, entry: ClassEntry, _ db: Database
    ) throws {
        let fragment = compiler(className, entry, db).compile(condition)
        let matched = try Bool.fetchOne(
            db, sql: "SELECT 1 FROM \"\(entry.table)\" WHERE id = ? AND (\(fragment.sql))",
            arguments: StatementArguments([id.databaseValue] + fragment.arguments)) ?? false
        guard matched else { throw DataAPIError.noEffect }
    }

    func createClass(_ className: String, _ db: Database) throws -> ClassEntry {
        let now = ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds())
        try db.execute(sql: "INSERT INTO classes (name, created_at) VALUES (?, ?)", arguments: [className, now])
        let table = "o_\(db.lastInsertedRowID)"
        try db.execute(sql: SQLiteSchema.createClassTable(table))
        for field in UniqueFields.fields(of: className) {
            try db.execute(sql: SQLiteSchema.createUniqueIndex(field, table: table))
        }
        return ClassEntry(table: table, fields: [:])
    }

    /// Records new field types and relation members of a write, in its transaction.
    private func record(_ write: ObjectWrite, className: String, ownerId: String, _ db: Database) throws {
        for (field, type) in write.newFieldTypes {
            try db.execute(
                sql: "INSERT OR IGNORE INTO fields (class, name, type) VALUES (?, ?, ?)",
                arguments: [className, field, type.rawValue])
        }
        for change in write.relationChanges {
            for target in change.ids {
                try db.execute(
                    sql: change.adding
                        ? "INSERT OR IGNORE INTO relations (owner_class, field, owner_id, target_id) VALUES (?, ?, ?, ?)"
                        : "DELETE FROM relations WHERE owner_class = ? AND field = ? AND owner_id = ? AND target_id = ?",
                    arguments: [className, change.field, ownerId, target])
            }
        }
    }

    /// Adds what a committed write created to the catalog.
    func remember(_ className: String, _ newFields: [String: FieldType], table: String? = nil) {
        catalog.withLock { catalog in
            if catalog[className] == nil, let table {
                // The class was created by this write, whose fields are then all it has.
                catalog[className] = ClassEntry(table: table, fields: newFields)
                return
            }
            guard catalog[className] != nil else { return }
            for (field, type) in newFields where catalog[className]!.fields[field] == nil {
                catalog[className]!.fields[field] = type
            }
        }
    }
}
