import JSON

extension ExportImporter {
    /// Objects (or Relation members) read and not written yet, with where each came from.
    struct Batch {
        var kind: ExportFile
        var objects: [StoredObject] = []
        var lines: [Int] = []
        var newTypes: [String: FieldType] = [:]
        var members: [RelationMember] = []
        var file = ""
    }

    /// Checks one exported value and adds it to the batch, writing the batch when it is full.
    mutating func add(
        _ value: JSONValue, line: Int, bytes: some Collection<UInt8>, to batch: inout Batch, file: String
    ) async throws {
        batch.file = file
        switch batch.kind {
        case .relation(_, let field):
            guard case .string(let owner)? = value["owningId"], case .string(let target)? = value["relatedId"],
                !owner.isEmpty, !target.isEmpty
            else {
                summary.skip(file, line: line, "A relation line needs owningId and relatedId.")
                return
            }
            batch.members.append(RelationMember(field: field, ownerId: owner, targetId: target))
            if batch.members.count >= batchSize { try await flush(&batch) }
        case .objects(let className):
            do {
                var object = try decoder.decode(value, className: className, line: bytes)
                if className == "_File", let fileBytes {
                    switch try await fileBytes.adopt(&object) {
                    case .adopted:
                        summary.fileBytesCopied += 1
                    case .missing(let reason):
                        summary.fileBytesMissing += 1
                        if let reason, summary.notes.count < ImportSummary.maxListedSkips { summary.notes.append(reason) }
                    }
                }
                try await accept(object, into: &batch)
                batch.lines.append(line)
            } catch let error as DataAPIError where !error.code.isHostFailure {
                // The line's own fault; a failure of the host (the file store) stops the import.
                summary.skip(file, line: line, "\(error.code.rawValue): \(error.message)")
                return
            }
            if batch.objects.count >= batchSize { try await flush(&batch) }
        case .schema, .other:
            break
        }
    }

    /// Adds an object to the batch if its fields fit the types its class has recorded (or that
    /// earlier lines of the import gave it); 111 if not.
    private mutating func accept(_ object: StoredObject, into batch: inout Batch) async throws {
        let className = object.className
        if knownTypes[className] == nil { knownTypes[className] = try await storage.fieldTypes(of: className) }
        var added: [String: FieldType] = [:]
        for (field, value) in object.fields where field != "ACL" {
            guard let type = FieldType(of: value) else { continue }
            if let recorded = knownTypes[className]?[field] ?? batch.newTypes[field] ?? added[field] {
                guard recorded == type else {
                    throw DataAPIError(
                        .incorrectType,
                        "Field '\(field)' holds \(type.rawValue) here but \(recorded.rawValue) in the class.")
                }
            } else {
                added[field] = type
            }
        }
        let size = JSONValue.object(object.fields).jsonBytes.count
        guard size <= ObjectWrite.maxDocumentSize else {
            throw DataAPIError(.objectTooLarge, "The object is \(size) bytes; the limit is 128 KB.")
        }
        batch.newTypes.merge(added) { old, _ in old }
        batch.objects.append(object)
        summary.classes[className, default: .init()].read += 1
    }

    /// Writes the batch in one transaction and counts what was new.
    mutating func flush(_ batch: inout Batch) async throws {
        defer {
            batch.objects.removeAll(keepingCapacity: true)
            batch.lines.removeAll(keepingCapacity: true)
            batch.members.removeAll(keepingCapacity: true)
            batch.newTypes = [:]
        }
        switch batch.kind {
        case .relation(let ownerClass, _) where !batch.members.isEmpty:
            _ = try await storage.insertExported(ownerClass, objects: [], fieldTypes: [:], relations: batch.members)
            if ownerClass == "_Role" { service.roleChanges.bump() }
            summary.relationMembers += batch.members.count
        case .objects(let className) where !batch.objects.isEmpty:
            var objects = batch.objects
            if className == "_User" { objects = try await withoutTakenIdentities(objects, batch: batch) }
            let written = try await storage.insertExported(
                className, objects: objects, fieldTypes: batch.newTypes, relations: [])
            if className == "_Role" { service.roleChanges.bump() }
            if className == "_File", fileBytes != nil, written < objects.count { try await repointImportedFiles(objects) }
            knownTypes[className, default: [:]].merge(batch.newTypes) { old, _ in old }
            summary.classes[className, default: .init()].written += written
            summary.classes[className, default: .init()].existing += objects.count - written
            reportProgress(file: batch.file)
        default:
            break
        }
    }

    /// The users of a batch whose username, email and phone number no other user has: a new user
    /// holding one already taken is skipped (LeanCloud keeps them unique, and so does login).
    private mutating func withoutTakenIdentities(_ users: [StoredObject], batch: Batch) async throws -> [StoredObject] {
        let existing = Set(try await storage.fetch("_User", ids: users.map(\.objectId)).map(\.objectId))
        var kept: [StoredObject] = []
        var claimed: Set<String> = []
        for (index, user) in users.enumerated() {
            if existing.contains(user.objectId) {
                kept.append(user)
                continue
            }
            var taken: String?
            for field in ["username", "email", "mobilePhoneNumber"] {
                guard case .string(let value)? = user.fields[field], !value.isEmpty else { continue }
                if !claimed.insert(field + "\u{0}" + value).inserted {
                    taken = field
                    break
                }
                var query = ObjectQuery(className: "_User", limit: 1)
                query.predicate = try QueryPredicate(where: [field: .string(value)])
                if let holder = try await storage.find(query).first, holder.objectId != user.objectId {
                    taken = field
                    break
                }
            }
            if let taken {
                summary.skip(batch.file, line: batch.lines[index], "137: another user has this \(taken).")
                summary.classes["_User", default: .init()].read -= 1
            } else {
                kept.append(user)
            }
        }
        return kept
    }

    private func reportProgress(file: String) {
        guard let progress else { return }
        let objects = summary.classes.values.reduce(0) { $0 + $1.read }
        progress(ImportProgress(bytesRead: input?.bytesRead ?? 0, totalBytes: totalBytes, objects: objects, file: file))
    }
}
