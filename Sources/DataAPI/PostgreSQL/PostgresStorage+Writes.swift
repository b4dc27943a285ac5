import JSON
internal import PostgresNIO
import Synchronization

extension PostgresStorage {
    public func create(_ className: String, changes: ObjectChanges) async throws -> StoredObject {
        var changes = changes
        if changes.fields["ACL"] == nil { changes.fields["ACL"] = .set(ACL.publicReadWrite) }
        let frozen = changes
        if let object = try await createInOneStatement(className, changes: frozen) { return object }
        let (object, entry) = try await transaction { connection in try await self.insert(className, frozen, connection) }
        remember(className, entry)
        return object
    }

    /// Inserts a new object inside a transaction: its class made when new, its fields' types
    /// recorded, its search rows written. Answers the object and what the write knows of its class.
    func insert(_ className: String, _ changes: ObjectChanges, _ connection: PostgresConnection) async throws
        -> (StoredObject, ClassEntry)
    {
        var entry: ClassEntry
        if let existing = try await self.entry(className, on: connection) {
            // (Not for a class created just now: its fields are all this write's, and reading
            // them here would cache a class that a rollback may yet undo.)
            entry = try await self.knowing(changes, of: className, existing, connection)
        } else {
            entry = try await self.createClass(className, connection)
        }
        let known = entry
        let write = try ObjectWrite(current: [:], changes: changes) { known.fields[$0] }
        let now = ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds())
        let object = StoredObject(
            className: className, objectId: changes.objectId ?? ObjectID.make(), createdAt: now, updatedAt: now,
            fields: write.fields)
        let inserted = try await connection.rows(
            SQL(
                """
                INSERT INTO "\(entry.table)" (id, created_at, updated_at, doc) VALUES (?, ?, ?, ?::jsonb)
                RETURNING \(Self.searchSettingsColumn)
                """,
                [object.objectId, now, now, try write.document(), className]))
        try await self.record(write, className: className, ownerId: object.objectId, connection)
        if let indexed = try self.searchFields(className, returned: inserted.first?[0] ?? "") {
            try await self.writeSearchRows([(object.objectId, object.fields)], table: entry.table, indexed: indexed, connection)
        }
        entry.fields.merge(write.newFieldTypes) { recorded, _ in recorded }
        return (object, entry)
    }

    /// The common create: a known class, fields whose types are all recorded, no relation
    /// members. Then the INSERT is the whole write, sent alone (one round trip instead of
    /// BEGIN, INSERT, COMMIT): recorded types never change, so the catalog's are authoritative.
    /// Not retried if the connection drops while it runs: the row may have been written.
    /// Returns nil when the write needs the full path, a class search is on for included: the
    /// INSERT writes nothing when the class has search settings, read by the statement itself
    /// after it has the table's lock (see `PostgresStorage+Search`), so a host can't miss that
    /// another has just turned search on.
    private func createInOneStatement(_ className: String, changes: ObjectChanges) async throws -> StoredObject? {
        guard !searchMayBeOn(className), let entry = catalog.withLock({ $0[className] }) else { return nil }
        guard let write = try? ObjectWrite(current: [:], changes: changes, typeOf: { entry.fields[$0] }),
            write.newFieldTypes.isEmpty, write.relationChanges.isEmpty
        else { return nil }
        let now = ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds())
        let object = StoredObject(
            className: className, objectId: changes.objectId ?? ObjectID.make(), createdAt: now, updatedAt: now,
            fields: write.fields)
        let insert = SQL(
            """
            INSERT INTO "\(entry.table)" (id, created_at, updated_at, doc) SELECT ?, ?, ?, ?::jsonb
            WHERE NOT EXISTS (SELECT 1 FROM fh_search WHERE class = ?) RETURNING id
            """,
            [object.objectId, now, now, try write.document(), className])
        let inserted: [[String]]
        do {
            inserted = try await rows(insert)
        } catch {
            throw report(Failure(error, sentAlone: true), writing: true)
        }
        if inserted.isEmpty {
            noteSearch(className, on: true)
            return nil
        }
        return object
    }

    public func update(
        _ className: String, id: String, changes: ObjectChanges, condition: QueryPredicate?, check: RowCheck?
    ) async throws -> StoredObject {
        try await prepareSubqueries(condition)
        let (object, entry) = try await transaction { connection -> (StoredObject, ClassEntry) in
            guard var entry = try await self.entry(className, on: connection) else {
                throw DataAPIError(.objectNotFound, "Object not found.")
            }
            // The row lock makes read-modify-write atomic across hosts: a concurrent update of
            // the same object waits here until this one commits, then reads its result.
            guard let row = try await connection.rows(
                SQL("SELECT id, created_at, updated_at, doc::text FROM \"\(entry.table)\" WHERE id = ? FOR UPDATE", [id])
            ).first
            else { throw DataAPIError(.objectNotFound, "Object not found.") }
            var object = try Self.decodeObject(row, className: className)
            try check?(object)
            entry = try await self.knowing(changes, of: className, entry, connection)
            if let condition {
                try await self.check(condition, id: id, className: className, entry: entry, connection)
            }
            let known = entry
            let write = try ObjectWrite(current: object.fields, changes: changes) { known.fields[$0] }
            let now = ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds())
            let updated = try await connection.rows(
                SQL(
                    "UPDATE \"\(entry.table)\" SET updated_at = ?, doc = ?::jsonb WHERE id = ? RETURNING \(Self.searchSettingsColumn)",
                    [now, try write.document(), id, className]))
            try await self.record(write, className: className, ownerId: id, connection)
            // Every object of a searched class has its row: it changes only with an indexed field.
            if let indexed = try self.searchFields(className, returned: updated.first?[0] ?? ""),
                indexed.contains(where: { object.fields[$0] != write.fields[$0] })
            {
                try await self.writeSearchRows([(id, write.fields)], table: entry.table, indexed: indexed, connection)
            }
            object.fields = write.fields
            object.updatedAt = now
            entry.fields.merge(write.newFieldTypes) { recorded, _ in recorded }
            return (object, entry)
        }
        remember(className, entry)
        return object
    }

    public func delete(_ className: String, id: String, condition: QueryPredicate?, check: RowCheck?) async throws {
        try await prepareSubqueries(condition)
        try await transaction { connection in
            guard let entry = try await self.entry(className, on: connection) else {
                if condition != nil { throw DataAPIError.noEffect }
                return
            }
            // The row checked is locked until the delete commits: no write changes its ACL between.
            if let check, let row = try await connection.rows(
                SQL("SELECT id, created_at, updated_at, doc::text FROM \"\(entry.table)\" WHERE id = ? FOR UPDATE", [id])
            ).first {
                try check(try Self.decodeObject(row, className: className))
            }
            var sql = SQL("DELETE FROM \"\(entry.table)\" WHERE id = ?", [id])
            if let condition {
                let fragment = self.compiler(className, entry).compile(condition)
                sql.text += " AND (\(fragment.text))"
                sql.binds += fragment.binds
            }
            sql.text += " RETURNING id"
            let deleted = try await connection.rows(sql)
            if condition != nil, deleted.isEmpty {
                throw DataAPIError.noEffect
            }
            try await connection.run(
                SQL("DELETE FROM fh_relations WHERE owner_class = ? AND owner_id = ?", [className, id]))
        }
    }

    public func delete(_ className: String, ids: [String], condition: QueryPredicate?) async throws -> [String] {
        let groups = Self.distinctGroups(ids)
        guard !groups.isEmpty else { return [] }
        try await prepareSubqueries(condition)
        return try await transaction { connection -> [String] in
            guard let entry = try await self.entry(className, on: connection) else { return [] }
            var gone = Set<String>()
            for group in groups {
                let marks = Self.placeholders(group.count)
                // The DELETE locks what it deletes; a row another transaction is updating is
                // waited for and its condition checked again on the committed row.
                var sql = SQL("DELETE FROM \"\(entry.table)\" WHERE id IN (\(marks))", group)
                if let condition {
                    let fragment = self.compiler(className, entry).compile(condition)
                    sql.text += " AND (\(fragment.text))"
                    sql.binds += fragment.binds
                }
                sql.text += " RETURNING id"
                let deleted = try await connection.rows(sql).map { $0[0] }
                gone.formUnion(deleted)
                if condition != nil, deleted.count < group.count {
                    // One left that exists didn't match: the throw rolls the transaction back.
                    let rest = group.filter { !gone.contains($0) }
                    let left = try await connection.rows(
                        SQL("SELECT id FROM \"\(entry.table)\" WHERE id IN (\(Self.placeholders(rest.count)))", rest))
                    guard left.isEmpty else { throw DataAPIError.noEffect }
                }
                guard !deleted.isEmpty else { continue }
                try await connection.run(
                    SQL(
                        "DELETE FROM fh_relations WHERE owner_class = ? AND owner_id IN (\(Self.placeholders(deleted.count)))",
                        [className] + deleted))
            }
            return groups.joined().filter(gone.contains)
        }
    }

    public func insertExported(
        _ className: String, objects: [StoredObject], fieldTypes: [String: FieldType], relations: [RelationMember]
    ) async throws -> Int {
        let (written, entry) = try await transaction { connection -> (Int, ClassEntry?) in
            var written = 0
            var entry: ClassEntry?
            if !objects.isEmpty || !fieldTypes.isEmpty {
                var known: ClassEntry
                if let existing = try await self.entry(className, on: connection) {
                    known = existing
                } else {
                    known = try await self.createClass(className, connection)
                }
                // One statement per batch: an export's objects go in at the rate of a bulk load.
                if !objects.isEmpty {
                    var insert = SQL("INSERT INTO \"\(known.table)\" (id, created_at, updated_at, doc) VALUES ")
                    for (index, object) in objects.enumerated() {
                        insert.text += index == 0 ? "(?, ?, ?, ?::jsonb)" : ", (?, ?, ?, ?::jsonb)"
                        insert.binds += [
                            object.objectId, object.createdAt, object.updatedAt, JSONValue.object(object.fields).jsonString,
                        ]
                    }
                    insert.text += " ON CONFLICT (id) DO NOTHING RETURNING id, \(Self.searchSettingsColumn)"
                    insert.binds.append(className)
                    let rows = try await connection.rows(insert)
                    let ids = Set(rows.map { $0[0] })
                    written = ids.count
                    if let indexed = try self.searchFields(className, returned: rows.first?[1] ?? "") {
                        // The first of an id given twice is the one inserted.
                        var seen = Set<String>()
                        let new = objects.filter { ids.contains($0.objectId) && seen.insert($0.objectId).inserted }
                            .map { ($0.objectId, $0.fields) }
                        try await self.writeSearchRows(new, table: known.table, indexed: indexed, connection)
                    }
                }
                for (field, type) in fieldTypes.sorted(by: { $0.key < $1.key }) {
                    try await connection.run(
                        SQL(
                            "INSERT INTO fh_fields (class, name, type) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                            [className, field, type.rawValue]))
                }
                known.fields.merge(fieldTypes) { recorded, _ in recorded }
                entry = known
            }
            for member in relations {
                try await connection.run(
                    SQL(
                        "INSERT INTO fh_relations (owner_class, field, owner_id, target_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                        [className, member.field, member.ownerId, member.targetId]))
            }
            return (written, entry)
        }
        if let entry { remember(className, entry) }
        return written
    }

    public func classNames() async throws -> [String] {
        try await reading { try await rows(SQL("SELECT name FROM fh_classes ORDER BY name")).map { $0[0] } }
    }

    public func declareClass(_ className: String, fieldTypes: [String: FieldType]) async throws -> Bool {
        let (entry, created) = try await transaction { connection -> (ClassEntry, Bool) in
            let existing = try await self.entry(className, on: connection, refresh: true)
            var entry: ClassEntry
            if let existing { entry = existing } else { entry = try await self.createClass(className, connection) }
            for (field, type) in fieldTypes.sorted(by: { $0.key < $1.key }) {
                try await self.recordType(type, of: field, className: className, connection)
                entry.fields[field] = type
            }
            return (entry, existing == nil)
        }
        remember(className, entry)
        return created
    }

    /// Throws 305 unless the (locked) object `id` matches `condition`.
    private func check(
        _ condition: QueryPredicate, id: String, className: String, entry: ClassEntry, _ connection: PostgresConnection
    ) async throws {
        let fragment = compiler(className, entry).compile(condition)
        let matched = try await connection.rows(
            SQL("SELECT 1 FROM \"\(entry.table)\" WHERE id = ? AND (\(fragment.text))", [id] + fragment.binds))
        guard !matched.isEmpty else { throw DataAPIError.noEffect }
    }

    /// The class's entry with every field `changes` writes known, reading the fields again when
    /// one is missing: another host may have recorded it since this one cached the class.
    private func knowing(
        _ changes: ObjectChanges, of className: String, _ entry: ClassEntry, _ connection: PostgresConnection
    ) async throws -> ClassEntry {
        let unknown = changes.fields.keys.contains { $0 != "ACL" && entry.fields[$0] == nil }
        guard unknown else { return entry }
        return try await self.entry(className, on: connection, refresh: true) ?? entry
    }

    /// Creates a class's row and table. Two hosts creating the same class at once both insert;
    /// the second waits on the unique name, then finds the first's row and uses its table.
    func createClass(_ className: String, _ connection: PostgresConnection) async throws -> ClassEntry {
        let now = ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds())
        let inserted = try await connection.rows(
            SQL(
                "INSERT INTO fh_classes (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING RETURNING id::text",
                [className, now]))
        guard let id = inserted.first?[0] else {
            guard let existing = try await entry(className, on: connection, refresh: true) else {
                throw DataAPIError(.storageFailure, "The storage engine failed to create a class.")
            }
            return existing
        }
        let table = "o_\(id)"
        for statement in PostgresSchema.createClassTable(table) { try await connection.run(SQL(statement)) }
        for field in UniqueFields.fields(of: className) {
            try await connection.run(SQL(PostgresSchema.createUniqueIndex(field, table: table)))
        }
        return ClassEntry(table: table, fields: [:])
    }

    /// Records new field types (`recordType`) and relation members of a write, in its transaction.
    private func record(_ write: ObjectWrite, className: String, ownerId: String, _ connection: PostgresConnection)
        async throws
    {
        for (field, type) in write.newFieldTypes.sorted(by: { $0.key < $1.key }) {
            try await recordType(type, of: field, className: className, connection)
        }
        for change in write.relationChanges {
            for target in change.ids {
                try await connection.run(
                    SQL(
                        change.adding
                            ? "INSERT INTO fh_relations (owner_class, field, owner_id, target_id) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"
                            : "DELETE FROM fh_relations WHERE owner_class = ? AND field = ? AND owner_id = ? AND target_id = ?",
                        [className, change.field, ownerId, target]))
            }
        }
    }

    /// Records a field's type in a transaction. A field first written by two hosts at once with
    /// different types: the second insert waits for the first to commit and gets its type back,
    /// and fails with 111 as it would have had it come second on one host.
    private func recordType(_ type: FieldType, of field: String, className: String, _ connection: PostgresConnection)
        async throws
    {
        let recorded = try await connection.rows(
            SQL(
                """
                INSERT INTO fh_fields (class, name, type) VALUES (?, ?, ?)
                ON CONFLICT (class, name) DO UPDATE SET type = fh_fields.type RETURNING type
                """, [className, field, type.rawValue])
        ).first?[0]
        if let recorded, recorded != type.rawValue { throw FieldType.conflict(field, recorded: recorded, given: type) }
    }

    /// Adds what a committed write learned of its class to the catalog.
    func remember(_ className: String, _ entry: ClassEntry) {
        catalog.withLock { catalog in
            guard var known = catalog[className] else {
                catalog[className] = entry
                return
            }
            known.fields.merge(entry.fields) { recorded, _ in recorded }
            catalog[className] = known
        }
    }
}
