public import JSON

/// A class's access settings as LeanCloud's console keeps them: who may do each action on the
/// class (class-level permissions) and how each field is shown to clients (field-level
/// permissions). The master key is never bound by them.
///
/// The JSON form is the one LeanCloud's export writes (`<Class>_all.json`):
/// `{"permissions": {"find": {"*": true}, ...}, "schema": {"secret": {"hidden": true}, ...}}`.
public struct ClassSettings: Sendable, Hashable {
    /// Who may do each action; an action with no rule here takes the class's default.
    public var permissions: [ClassAction: PermissionRule]
    /// Flags of the fields that have any set.
    public var fields: [String: FieldFlags]

    /// Creates settings.
    public init(permissions: [ClassAction: PermissionRule] = [:], fields: [String: FieldFlags] = [:]) {
        self.permissions = permissions
        self.fields = fields
    }

    /// The settings a class has before anyone sets them, as a new LeanCloud app's: everything
    /// open, but `_User` find closed (a client finds its own user only), `_File` delete closed,
    /// and `_Installation` and `_Session` find closed.
    /// `_User`'s personal fields are private to their user.
    public static func defaults(for className: String, openUserQueries: Bool = false) -> ClassSettings {
        // Built once each: every request's authorization asks for them.
        switch className {
        case "_User": openUserQueries ? Defaults.openUser : Defaults.user
        case "_File": Defaults.file
        case "_Installation": Defaults.installation
        case "_Session": Defaults.session
        default: Defaults.other
        }
    }

    /// The defaults of each kind of class, made once.
    private enum Defaults {
        static let user = made(for: "_User", openUserQueries: false)
        static let openUser = made(for: "_User", openUserQueries: true)
        static let file = made(for: "_File", openUserQueries: false)
        static let installation = made(for: "_Installation", openUserQueries: false)
        static let session = made(for: "_Session", openUserQueries: false)
        static let other = made(for: "", openUserQueries: false)
    }

    private static func made(for className: String, openUserQueries: Bool) -> ClassSettings {
        var settings = ClassSettings()
        for action in ClassAction.allCases { settings.permissions[action] = .everyone }
        switch className {
        case "_User":
            if !openUserQueries { settings.permissions[.find] = .nobody }
            for field in Self.userPrivateFields { settings.fields[field] = FieldFlags(userPrivate: true) }
        case "_File":
            settings.permissions[.delete] = .nobody
        case "_Installation", "_Session":
            // Device tokens and sessions are nobody else's to list (Parse's and LeanCloud's
            // clients fetch their own installation by id).
            settings.permissions[.find] = .nobody
        default:
            break
        }
        return settings
    }

    /// `_User` fields only their user and the master key see, unless the operator opens them.
    public static let userPrivateFields: Set<String> = [
        "authData", "email", "mobilePhoneNumber", "emailVerified", "mobilePhoneVerified",
    ]

    /// These settings with `changes` (the JSON form, possibly partial) laid over them: an action
    /// given replaces that action's rule, a flag given replaces that flag of its field. A field
    /// descriptor without flags (an export's `{"type": "String"}`) changes nothing.
    ///
    /// - Throws: 107 for a malformed document.
    public func merging(_ changes: JSONValue) throws(DataAPIError) -> ClassSettings {
        guard case .object(let members) = changes else {
            throw DataAPIError(.malformedJSON, "Class settings must be a JSON object.")
        }
        var merged = self
        if let permissions = members["permissions"] {
            guard case .object(let rules) = permissions else {
                throw DataAPIError(.malformedJSON, "permissions must be an object of actions.")
            }
            for (name, rule) in rules {
                guard let action = ClassAction(rawValue: name) else {
                    throw DataAPIError(
                        .malformedJSON,
                        "Unknown action '\(name)': use \(ClassAction.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                merged.permissions[action] = try PermissionRule(json: rule, action: action)
            }
        }
        if let schema = members["schema"] {
            guard case .object(let descriptors) = schema else {
                throw DataAPIError(.malformedJSON, "schema must be an object of fields.")
            }
            for (field, descriptor) in descriptors {
                guard Names.isValidKeyPath(field), !field.contains(".") else {
                    throw DataAPIError(.invalidKeyName, "Invalid field name '\(field)'.")
                }
                let flags = try merged.flags(of: field).merging(descriptor, field: field)
                merged.fields[field] = flags.isEmpty ? nil : flags
            }
        }
        return merged
    }

    /// The JSON form, with every action's rule and the flags of the fields that have any.
    public var json: JSONValue {
        var rules: [String: JSONValue] = [:]
        for (action, rule) in permissions { rules[action.rawValue] = rule.json }
        var schema: [String: JSONValue] = [:]
        for (field, flags) in fields where !flags.isEmpty { schema[field] = flags.json }
        return ["permissions": .object(rules), "schema": .object(schema)]
    }

    /// The rule for an action, open when none is set.
    public func rule(for action: ClassAction) -> PermissionRule {
        permissions[action] ?? .everyone
    }

    /// The flags of a field, none when it has no entry.
    public func flags(of field: String) -> FieldFlags {
        fields[field] ?? FieldFlags()
    }
}

/// The actions class-level permissions govern, by LeanCloud's names.
public enum ClassAction: String, Sendable, Hashable, CaseIterable {
    /// Fetching one object by id (and resolving it through `include` or `$relatedTo`).
    case get
    /// Querying (find, count, CQL, subqueries).
    case find
    /// Creating objects.
    case create
    /// Updating objects.
    case update
    /// Deleting objects.
    case delete
    /// Creating or updating objects with a field the class doesn't have yet.
    case addFields = "add_fields"
}

/// Who may do one action on a class.
public enum PermissionRule: Sendable, Hashable {
    /// Anyone holding the app key (`{"*": true}`).
    case everyone
    /// Any signed-in user (`{"onlySignInUsers": true}`).
    case signedInUsers
    /// These users (by id) and the members of these roles (by name); both empty is the master
    /// key alone (`{"users": [...], "roles": [...]}`). Sets of `Identity`, which compare as bytes:
    /// a role whose name only looks like a listed one is not listed.
    case listed(users: Set<Identity>, roles: Set<Identity>)

    /// Nobody but the master key.
    public static let nobody = PermissionRule.listed(users: [], roles: [])

    /// Parses LeanCloud's form; `users` and `roles` may be lists or comma-separated strings, as
    /// exports hold both. Names are normalised (`Identity.normalized`) as role names are when a
    /// role is created, so a list names the role it shows.
    init(json: JSONValue, action: ClassAction) throws(DataAPIError) {
        guard case .object(let members) = json else {
            throw DataAPIError(.malformedJSON, "The \(action.rawValue) permission must be an object.")
        }
        if members["*"] == true {
            self = .everyone
        } else if members["onlySignInUsers"] == true {
            self = .signedInUsers
        } else {
            self = .listed(
                users: try Self.names(members["users"], action: action), roles: try Self.names(members["roles"], action: action))
        }
    }

    private static func names(_ value: JSONValue?, action: ClassAction) throws(DataAPIError) -> Set<Identity> {
        switch value {
        case nil, .null?:
            return []
        case .string(let list)?:
            return Set(
                list.split(separator: ",").map { $0.trimmingWhitespace }.filter { !$0.isEmpty }
                    .map { Identity(Identity.normalized($0)) })
        case .array(let elements)?:
            var names: Set<Identity> = []
            for element in elements {
                guard case .string(let name) = element else {
                    throw DataAPIError(.malformedJSON, "The \(action.rawValue) permission lists names as strings.")
                }
                names.insert(Identity(Identity.normalized(name)))
            }
            return names
        default:
            throw DataAPIError(.malformedJSON, "The \(action.rawValue) permission lists users and roles as arrays.")
        }
    }

    /// LeanCloud's form.
    public var json: JSONValue {
        switch self {
        case .everyone: return ["*": true]
        case .signedInUsers: return ["onlySignInUsers": true]
        case .listed(let users, let roles):
            return [
                "users": .array(users.map(\.text).sorted().map(JSONValue.string)),
                "roles": .array(roles.map(\.text).sorted().map(JSONValue.string)),
            ]
        }
    }

    /// Whether a caller with these identities (`*`, a user id, `role:Name`) may act.
    func allows(_ identities: [Identity], userId: String?) -> Bool {
        switch self {
        case .everyone: return true
        case .signedInUsers: return userId != nil
        case .listed(let users, let roles):
            return identities.contains { identity in
                identity.roleName.map { roles.contains(Identity($0)) } ?? users.contains(identity)
            }
        }
    }
}

/// How one field is shown to clients.
public struct FieldFlags: Sendable, Hashable {
    /// Never answered to, nor queried or sorted by, a client.
    public var hidden = false
    /// Written by the master key and cloud code acting as master only.
    public var readOnly = false
    /// (`_User`) answered only to the user it belongs to; never queried by a client.
    public var userPrivate = false

    /// Creates flags.
    public init(hidden: Bool = false, readOnly: Bool = false, userPrivate: Bool = false) {
        self.hidden = hidden
        self.readOnly = readOnly
        self.userPrivate = userPrivate
    }

    /// These flags with those a field descriptor of LeanCloud's schema sets (`{"type": ...,
    /// "hidden": true, "read_only": false, "user_private": true}`); absent flags and other keys
    /// leave them as they are.
    func merging(_ json: JSONValue, field: String) throws(DataAPIError) -> FieldFlags {
        guard case .object(let members) = json else {
            throw DataAPIError(.malformedJSON, "The descriptor of \(field) must be an object.")
        }
        func flag(_ name: String, _ current: Bool) throws(DataAPIError) -> Bool {
            switch members[name] {
            case nil, .null?: return current
            case .bool(let value)?: return value
            default: throw DataAPIError(.malformedJSON, "\(name) of \(field) must be true or false.")
            }
        }
        return FieldFlags(
            hidden: try flag("hidden", hidden), readOnly: try flag("read_only", readOnly),
            userPrivate: try flag("user_private", userPrivate))
    }

    /// Whether no flag is set.
    public var isEmpty: Bool { !hidden && !readOnly && !userPrivate }

    /// The set flags in LeanCloud's descriptor keys.
    public var json: JSONValue {
        var members: [String: JSONValue] = [:]
        if hidden { members["hidden"] = true }
        if readOnly { members["read_only"] = true }
        if userPrivate { members["user_private"] = true }
        return .object(members)
    }
}
