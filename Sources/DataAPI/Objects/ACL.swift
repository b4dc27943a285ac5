public import JSON

/// Access control lists: `{"*": {"read": true}, "<userId>": {"write": true}, "role:Admin": {...}}`.
public enum ACL {
    /// The ACL an object gets when its creator gives none: readable and writable by everyone,
    /// as LeanCloud's default class permissions have it.
    public static let publicReadWrite: JSONValue = ["*": ["read": true, "write": true]]

    /// The ACL when it is well formed, its keys normalised (`Identity.normalized`: a key written
    /// in a decomposed spelling names the role whose name is stored composed); else error 123.
    public static func validated(_ value: JSONValue) throws(DataAPIError) -> JSONValue {
        guard case .object(let entries) = value else {
            throw DataAPIError(.invalidACL, "Invalid ACL: expected an object.")
        }
        var normalized: [String: JSONValue] = [:]
        for (key, permissions) in entries {
            guard !key.isEmpty, case .object(let rights) = permissions else {
                throw DataAPIError(.invalidACL, "Invalid ACL entry '\(key)'.")
            }
            for (right, granted) in rights {
                guard right == "read" || right == "write", case .bool = granted else {
                    throw DataAPIError(.invalidACL, "Invalid ACL permission '\(right)' for '\(key)'.")
                }
            }
            normalized[Identity.normalized(key)] = permissions
        }
        return .object(normalized)
    }
}
