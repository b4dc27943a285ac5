public import JSON

extension DataService {
    /// The most fields one schema request declares: a class has far fewer (MongoDB, under
    /// LeanCloud, indexed at most 64), and the bound keeps one request's transaction small.
    package static let maxDeclaredFields = 500

    /// `POST /schemas/{Class}` (master key), Parse's way to create a class: the body is
    /// `{"className", "fields": {"name": {"type": "String"}, ...}, "classLevelPermissions"}`
    /// (LeanCloud's `permissions` and field flags are read too). The class then exists, empty:
    /// queries answer no results, not 101. Answers the class as Parse does.
    ///
    /// - Throws: 103 when the class exists already (or the body names another class), 111 for
    ///   an unknown type, 119 without the master key.
    public func createClass(_ className: String, with document: JSONValue, caller: Caller) async throws -> JSONValue {
        let settings = try await declareClass(className, with: document, mustBeNew: true, caller: caller)
        return [
            "className": .string(className),
            "fields": try await schema(of: className, in: storage(for: caller)),
            "classLevelPermissions": ParsePermissions.document(settings),
        ]
    }

    /// `PUT /schemas/{Class}` (master key): the class's settings (LeanCloud's `permissions` and
    /// field flags, or Parse's `classLevelPermissions`), and the fields' types given in `fields`.
    /// A class set this way exists from then on, as one the console set permissions on did.
    /// Returns the settings now in force.
    public func updateClass(_ className: String, with document: JSONValue, caller: Caller) async throws -> ClassSettings {
        try await declareClass(className, with: document, mustBeNew: false, caller: caller)
    }

    /// Checks the whole document first (types, rules and flags), then creates the class with its
    /// fields and stores the settings: a refused document writes nothing.
    private func declareClass(
        _ className: String, with document: JSONValue, mustBeNew: Bool, caller: Caller
    ) async throws -> ClassSettings {
        try checkClassName(className)
        guard caller.isMaster else { throw DataAPIError(.operationForbidden, "Changing a class's schema needs the master key.") }
        guard !Names.internalClasses.contains(className) else {
            throw DataAPIError(.operationForbidden, "\(className) is the host's own class: its schema can't be changed.")
        }
        guard case .object(let members) = document else {
            throw DataAPIError(.malformedJSON, "A schema must be a JSON object.")
        }
        if case .string(let named)? = members["className"], named != className {
            throw DataAPIError(.invalidClassName, "Class name mismatch between \(named) and \(className).")
        }
        let (types, flags) = try Self.declaredFields(members["fields"])
        var changes: [String: JSONValue] = [:]
        if let permissions = members["permissions"] { changes["permissions"] = permissions }
        if let parse = members["classLevelPermissions"] {
            guard changes["permissions"] == nil else {
                throw DataAPIError(.badParameters, "Give permissions or classLevelPermissions, not both.")
            }
            changes["permissions"] = try ParsePermissions.leanCloudRules(parse)
        }
        var schema = members["schema"]?.objectValue ?? [:]
        if let given = members["schema"], given.objectValue == nil {
            throw DataAPIError(.malformedJSON, "schema must be an object of fields.")
        }
        schema.merge(flags) { given, _ in given }
        if !schema.isEmpty { changes["schema"] = .object(schema) }
        // The settings are checked before anything is written.
        let current = try await classSettings(of: className)
        let merged = try current.merging(.object(changes))
        let storage = storage(for: caller)
        if mustBeNew, try await storage.classExists(className) {
            throw DataAPIError(.invalidClassName, "Class \(className) already exists.")
        }
        let created = try await storage.declareClass(className, fieldTypes: types)
        if mustBeNew, !created { throw DataAPIError(.invalidClassName, "Class \(className) already exists.") }
        guard merged != current else { return current }
        return try await updateClassSettings(className, with: .object(changes), caller: caller)
    }

    /// The types and flags of a schema's `fields`: built-in fields and `ACL` are the class's
    /// already and are skipped; the rest of a descriptor (`targetClass`, `required`, a comment)
    /// is no setting here.
    private static func declaredFields(_ fields: JSONValue?) throws(DataAPIError)
        -> (types: [String: FieldType], flags: [String: JSONValue])
    {
        guard let fields else { return ([:], [:]) }
        guard case .object(let descriptors) = fields else {
            throw DataAPIError(.malformedJSON, "fields must be an object of field descriptors.")
        }
        guard descriptors.count <= maxDeclaredFields else {
            throw DataAPIError(.badParameters, "A schema declares at most \(maxDeclaredFields) fields at once.")
        }
        var types: [String: FieldType] = [:]
        var flags: [String: JSONValue] = [:]
        for (field, descriptor) in descriptors where !Names.builtInFields.contains(field) && field != "ACL" {
            guard Names.isValidFieldName(field) else { throw DataAPIError(.invalidKeyName, "Invalid field name '\(field)'.") }
            guard case .object(let members) = descriptor else {
                throw DataAPIError(.malformedJSON, "The descriptor of \(field) must be an object.")
            }
            if members["__op"] != nil {
                throw DataAPIError(.badParameters, "Fields aren't deleted through the schema API here: \(field) is kept.")
            }
            guard case .string(let name)? = members["type"], let type = FieldType(rawValue: name), FieldType.declarable.contains(type)
            else {
                throw DataAPIError(
                    .incorrectType,
                    "Invalid field type for \(field): give \(FieldType.declarable.map(\.rawValue).joined(separator: ", ")).")
            }
            types[field] = type
            let set = members.filter { ExportImporter.flagKeys.contains($0.key) }
            if !set.isEmpty { flags[field] = .object(set) }
        }
        return (types, flags)
    }
}
