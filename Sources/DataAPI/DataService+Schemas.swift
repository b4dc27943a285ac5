extension DataService {
    /// `GET /schemas` (master key): every class with the type of each field, in the shape of
    /// LeanCloud's schema API (`{"Class": {"field": {"type": "String"}, ...}, ...}`), so export
    /// tools (and `functionhost import --from-server`) can list an app's classes.
    public func schemas(caller: Caller) async throws -> [String: JSONValue] {
        guard caller.isMaster else { throw DataAPIError(.operationForbidden, "Reading schemas needs the master key.") }
        var classes: [String: JSONValue] = [:]
        for name in try await storage.classNames() {
            classes[name] = try await schema(of: name)
        }
        return classes
    }

    /// `GET /schemas/{Class}` (master key): one class's fields; 101 when it has none.
    public func schema(of className: String, caller: Caller) async throws -> JSONValue {
        try checkClassName(className)
        guard caller.isMaster else { throw DataAPIError(.operationForbidden, "Reading schemas needs the master key.") }
        guard try await storage.classExists(className) else { throw Self.classNotFound }
        return try await schema(of: className)
    }

    private func schema(of className: String) async throws -> JSONValue {
        var fields: [String: JSONValue] = [
            "objectId": ["type": "String"], "createdAt": ["type": "Date"], "updatedAt": ["type": "Date"],
            "ACL": ["type": "ACL"],
        ]
        for (field, type) in try await storage.fieldTypes(of: className) where !Self.hiddenFields(of: className).contains(field) {
            fields[field] = ["type": .string(type.rawValue)]
        }
        return .object(fields)
    }

    /// Fields never shown, whatever the caller.
    private static func hiddenFields(of className: String) -> Set<String> {
        className == "_User" ? ["_failedLogins"] : []
    }
}
