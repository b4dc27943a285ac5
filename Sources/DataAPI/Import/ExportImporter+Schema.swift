package import JSON

extension ExportImporter {
    /// The keys of LeanCloud's field descriptors that are access settings here; the others
    /// (`type`, `default`, `comment`, ...) are not.
    static let flagKeys: Set<String> = ["hidden", "read_only", "user_private"]

    /// Applies a schema file (`<Class>_schema.json`, `_permissions.json` or `_all.json`): a file
    /// with a schema creates the class (empty when no rows follow) and records its field types;
    /// the class permissions and field flags become the class's settings; the default ACL and
    /// indexes are noted, not applied.
    mutating func importSchema(_ bytes: [UInt8], className: String, file: String) async throws {
        guard let document = try? JSONValue(parsing: bytes), case .object(let members) = document else {
            summary.skip(file, line: 1, "107: the schema file is not a JSON object.")
            return
        }
        if case .object(let fields)? = members["schema"] {
            try await declareClass(className, descriptors: fields)
            if case .object(let acl)? = fields["ACL"], acl["default"] != nil {
                summary.notes.append("\(file): the class's default ACL is not applied; give it with serve --default-acl.")
            }
        }
        try await importSettings(document, className: className, origin: file)
        if case .array(let indexes)? = members["indexes"], !indexes.isEmpty {
            summary.notes.append(
                "\(file): \(indexes.count) index(es) not applied: queried fields are indexed on first use here.")
        }
    }

    /// Makes the class, with the types its field descriptors (`{"field": {"type": "String"}}`,
    /// as a schema file or a live server's `/schemas` gives them) name for fields it doesn't have:
    /// the class exists from its schema on, rows or none, and an empty one answers empty results.
    /// Unknown types and malformed names are left for the objects to record.
    public mutating func declareClass(_ className: String, descriptors fields: [String: JSONValue]) async throws {
        if knownTypes[className] == nil { knownTypes[className] = try await storage.fieldTypes(of: className) }
        var types: [String: FieldType] = [:]
        for (field, descriptor) in fields where !Names.builtInFields.contains(field) && field != "ACL" {
            guard case .string(let name)? = descriptor["type"], let type = FieldType(rawValue: name),
                Names.isValidFieldName(field), knownTypes[className]?[field] == nil
            else { continue }
            types[field] = type
        }
        _ = try await storage.declareClass(className, fieldTypes: types)
        knownTypes[className, default: [:]].merge(types) { old, _ in old }
    }

    /// Makes the class of an objects file (or a live server's scan) that held no objects: a class
    /// LeanCloud exported empty is there, empty, after the import, not missing.
    mutating func keepClass(of kind: ExportFile) async throws {
        guard case .objects(let className) = kind, try await !storage.classExists(className) else { return }
        _ = try await storage.declareClass(className, fieldTypes: [:])
    }

    /// Lays the class permissions and field flags of `document` (LeanCloud's `{"permissions":
    /// {...}, "schema": {...}}`) over the class's settings, so a class the old console closed is
    /// closed here too. A document that changes nothing writes nothing, so importing twice gives
    /// the same database; one the settings refuse is listed as a skipped line of `origin`. The
    /// class counts in the summary when its settings are then other than the defaults.
    public mutating func importSettings(_ document: JSONValue, className: String, origin: String) async throws {
        var changes: [String: JSONValue] = [:]
        if case .object(let permissions)? = document["permissions"], !permissions.isEmpty {
            changes["permissions"] = .object(permissions)
        }
        if case .object(let fields)? = document["schema"] {
            // Only the flags: the rest of a descriptor is type information, recorded apart.
            var flagged: [String: JSONValue] = [:]
            for (field, descriptor) in fields {
                guard case .object(let members) = descriptor else { continue }
                let flags = members.filter { Self.flagKeys.contains($0.key) }
                if !flags.isEmpty { flagged[field] = .object(flags) }
            }
            if !flagged.isEmpty { changes["schema"] = .object(flagged) }
        }
        guard !changes.isEmpty else { return }
        do {
            let current = try await service.classSettings(of: className)
            let merged = try current.merging(.object(changes))
            if merged != current {
                _ = try await service.updateClassSettings(className, with: .object(changes), caller: .master)
            }
            // A document restating the defaults (a live server's answer for an untouched class)
            // gives the class nothing to report.
            let defaults = ClassSettings.defaults(for: className, openUserQueries: service.openUserQueries)
            if merged != defaults {
                summary.classesWithSettings.insert(className)
            }
            // LeanCloud's own default lets any client list users; this host's doesn't, so an
            // export restating LeanCloud's default opens something the operator may not expect.
            if merged.rule(for: .find) != defaults.rule(for: .find), merged.rule(for: .find) == .everyone {
                summary.notes.append(
                    "\(origin): \(className) find is open to everyone, as the export says (closed by default here); close it with functionhost schema permit \(className) find nobody."
                )
            }
        } catch let error as DataAPIError where !error.code.isHostFailure {
            summary.skip(origin, line: 1, "\(error.code.rawValue): \(error.message)")
        }
    }
}
