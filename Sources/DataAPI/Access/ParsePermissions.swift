public import JSON

/// Parse's `classLevelPermissions` (`{"find": {"*": true}, "create": {"role:admin": true},
/// "addField": {"requiresAuthentication": true}, ...}`), read into and written from LeanCloud's
/// permission form, so a schema a Parse SDK or a Parse-era tool sends sets the same rules.
package enum ParsePermissions {
    /// Parse's action names, by LeanCloud's.
    static let actions: [String: ClassAction] = [
        "get": .get, "find": .find, "create": .create, "update": .update, "delete": .delete, "addField": .addFields,
    ]

    /// The `permissions` member of a settings change (LeanCloud's form) that `document` means.
    /// `count` follows `find` here (as on LeanCloud), so it is read only when it says the same.
    ///
    /// - Throws: 1 for a setting this host has no equivalent of (`protectedFields`, pointer
    ///   permissions, a `count` other than `find`), 107 for a malformed one.
    public static func leanCloudRules(_ document: JSONValue) throws(DataAPIError) -> JSONValue {
        guard case .object(let members) = document else {
            throw DataAPIError(.malformedJSON, "classLevelPermissions must be an object of actions.")
        }
        var rules: [String: JSONValue] = [:]
        for (name, rule) in members where name != "count" {
            guard let action = actions[name] else {
                throw DataAPIError(
                    .badParameters,
                    "classLevelPermissions.\(name) is not supported here: give get, find, count, create, update, delete or addField (hide fields with the schema's hidden flag).")
            }
            rules[action.rawValue] = try leanCloudRule(rule, action: name)
        }
        if let count = members["count"], let find = rules["find"], try leanCloudRule(count, action: "count") != find {
            throw DataAPIError(.badParameters, "classLevelPermissions.count must be the same as find: counting follows find here.")
        }
        return .object(rules)
    }

    /// One action's rule in LeanCloud's form: `{"*": true}`, `{"onlySignInUsers": true}`, or the
    /// users and roles whose keys are `true`.
    private static func leanCloudRule(_ rule: JSONValue, action: String) throws(DataAPIError) -> JSONValue {
        guard case .object(let grants) = rule else {
            throw DataAPIError(.malformedJSON, "classLevelPermissions.\(action) must be an object.")
        }
        if grants["*"] == true { return ["*": true] }
        if grants["requiresAuthentication"] == true { return ["onlySignInUsers": true] }
        var users: [JSONValue] = []
        var roles: [JSONValue] = []
        for (key, granted) in grants.sorted(by: { $0.key < $1.key }) {
            guard case .bool(let allowed) = granted else {
                throw DataAPIError(.malformedJSON, "classLevelPermissions.\(action).\(key) must be true or false.")
            }
            guard allowed, key != "*", key != "requiresAuthentication" else { continue }
            if key.hasPrefix("role:") {
                roles.append(.string(String(key.dropFirst(5))))
            } else {
                users.append(.string(key))
            }
        }
        return ["users": .array(users), "roles": .array(roles)]
    }

    /// The class's settings as Parse's `classLevelPermissions` (`count` as `find`).
    public static func document(_ settings: ClassSettings) -> JSONValue {
        var document: [String: JSONValue] = [:]
        for (name, action) in actions { document[name] = parseRule(settings.rule(for: action)) }
        document["count"] = document["find"]
        return .object(document)
    }

    private static func parseRule(_ rule: PermissionRule) -> JSONValue {
        switch rule {
        case .everyone: return ["*": true]
        case .signedInUsers: return ["requiresAuthentication": true]
        case .listed(let users, let roles):
            var grants: [String: JSONValue] = [:]
            for user in users { grants[user.text] = true }
            for role in roles { grants["role:" + role.text] = true }
            return .object(grants)
        }
    }
}
