public import JSON

extension DataService {
    /// `GET /schemas` (master key): every class with the type of each field, in the shape of
    /// LeanCloud's schema API (`{"Class": {"field": {"type": "String"}, ...}, ...}`), so export
    /// tools (and `functionhost import --from-server`) can list an app's classes.
    public func schemas(caller: Caller) async throws -> [String: JSONValue] {
        guard caller.isMaster else { throw DataAPIError(.operationForbidden, "Reading schemas needs the master key.") }
        var classes: [String: JSONValue] = [:]
        let storage = storage(for: caller)
        let access = try await access(for: caller)
        // Only the classes the caller can reach: the deploy classes are no data path's, so
        // neither are their fields (and an export tool walking this list never stops on one).
        for name in try await storage.classNames() where access.reaches(name) {
            classes[name] = try await schema(of: name, in: storage)
        }
        return classes
    }

    /// `GET /schemas/{Class}` (master key): one class's fields; 101 when it has none.
    public func schema(of className: String, caller: Caller) async throws -> JSONValue {
        try checkClassName(className)
        guard caller.isMaster else { throw DataAPIError(.operationForbidden, "Reading schemas needs the master key.") }
        try await access(for: caller).checkNotInternal(className)
        let storage = storage(for: caller)
        guard try await storage.classExists(className) else { throw Self.classNotFound }
        return try await schema(of: className, in: storage)
    }

    func schema(of className: String, in storage: any StorageEngine) async throws -> JSONValue {
        var fields: [String: JSONValue] = [
            "objectId": ["type": "String"], "createdAt": ["type": "Date"], "updatedAt": ["type": "Date"],
            "ACL": ["type": "ACL"],
        ]
        for (field, type) in try await storage.fieldTypes(of: className) where !Self.hiddenFields(of: className).contains(field) {
            fields[field] = ["type": .string(type.rawValue)]
        }
        // Field permissions ride on the descriptors, as in LeanCloud's schema export.
        for (field, flags) in try await classSettings(of: className).fields {
            guard case .object(var descriptor)? = fields[field], case .object(let set) = flags.json else { continue }
            descriptor.merge(set) { _, flag in flag }
            fields[field] = .object(descriptor)
        }
        return .object(fields)
    }

    /// `GET /schemas/{Class}/permissions` and the answer of `PUT /schemas/{Class}` (master key):
    /// the class settings in force, in the shape of an export's `<Class>_all.json`.
    public func settingsDocument(of className: String, caller: Caller) async throws -> JSONValue {
        try checkClassName(className)
        guard caller.isMaster else { throw DataAPIError(.operationForbidden, "Reading schemas needs the master key.") }
        return Self.document(className, try await classSettings(of: className))
    }

    /// The settings of a class as `PUT /schemas/{Class}` answers them.
    public static func document(_ className: String, _ settings: ClassSettings) -> JSONValue {
        guard case .object(var members) = settings.json else { return settings.json }
        members["className"] = .string(className)
        return .object(members)
    }

    /// Fields never shown, whatever the caller.
    private static func hiddenFields(of className: String) -> Set<String> {
        className == "_User" ? ["_failedLogins", "_loginAttempts"] : []
    }
}
