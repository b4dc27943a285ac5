import Crypto
package import JSON

/// Turns one object of a LeanCloud export (REST encoding, one JSON object per line) into the
/// object storage keeps: its own id and dates, a checked ACL, and every value in stored form.
///
/// Exports differ from REST writes in a few ways this accepts: `createdAt`/`updatedAt` are plain
/// ISO strings (or, from other tools, Date values), a File may be in its expanded read form, a
/// `_File` row carries `"__type": "File"`, and a `_User` row carries LeanCloud's `salt` and
/// `password` hash.
package struct ExportDecoder: Sendable {
    /// Whether imported users keep the session token of their export (LeanCloud keeps one per
    /// user, so their apps stay logged in); otherwise they log in again.
    public var keepsSessionTokens: Bool

    /// Pointers are stored whatever their class: an export's classes arrive in any order.
    private let normalizer = ValueNormalizer(classExists: { _ in true })

    /// Creates a decoder.
    public init(keepsSessionTokens: Bool = true) {
        self.keepsSessionTokens = keepsSessionTokens
    }

    /// The stored object for one exported object of `className`.
    ///
    /// - Parameter line: the line's bytes, which give a line without an `objectId` a stable id
    ///   (the same line imports as the same object every time).
    /// - Throws: a `DataAPIError` saying why the object can't be imported.
    public func decode(_ value: JSONValue, className: String, line: some Collection<UInt8>) throws(DataAPIError)
        -> StoredObject
    {
        guard case .object(var members) = value else {
            throw DataAPIError(.malformedJSON, "A line must hold one JSON object.")
        }
        let objectId: String
        switch members.removeValue(forKey: "objectId") {
        case .string(let id)?:
            guard !id.isEmpty, id.utf8.count <= 128 else { throw DataAPIError(.missingObjectId, "Invalid objectId.") }
            objectId = id
        case nil:
            objectId = Self.stableId(for: line)
        default:
            throw DataAPIError(.missingObjectId, "objectId must be a string.")
        }
        let updated = try Self.date(members.removeValue(forKey: "updatedAt"), field: "updatedAt")
        let created = try Self.date(members.removeValue(forKey: "createdAt"), field: "createdAt")
        let now = ISODate.string(fromMilliseconds: ObjectID.currentMilliseconds())
        var fields: [String: JSONValue] = [:]
        fields["ACL"] = try members.removeValue(forKey: "ACL").map { value throws(DataAPIError) in
            try ACL.validated(value)
        } ?? ACL.publicReadWrite
        if className == "_File" { members["__type"] = nil }
        if className == "_User" { try takeUserSecrets(&members, into: &fields) }
        for (key, value) in members {
            guard Names.isValidFieldName(key) else {
                throw DataAPIError(.invalidKeyName, "Invalid field name '\(key)'.")
            }
            if case .null = value { continue }
            fields[key] = try normalizer.normalize(value, field: key)
        }
        // Usernames and role names are identities, stored in their normal form as writes store them.
        Identity.normalizeName(in: &fields, of: className)
        return StoredObject(
            className: className, objectId: objectId, createdAt: created ?? updated ?? now,
            updatedAt: updated ?? created ?? now, fields: fields)
    }

    /// Moves `_User`'s secrets into their stored form: LeanCloud's `salt` + `password` become
    /// one hash the login checks; a session token is kept or dropped.
    private func takeUserSecrets(_ members: inout [String: JSONValue], into fields: inout [String: JSONValue])
        throws(DataAPIError)
    {
        let salt = members.removeValue(forKey: "salt")
        let password = members.removeValue(forKey: "password")
        let token = members.removeValue(forKey: "sessionToken")
        switch (salt, password) {
        case (.string(let salt)?, .string(let hash)?) where !salt.isEmpty && !hash.isEmpty:
            fields["password"] = .string(PasswordHasher.leanCloudHash(salt: salt, hash: hash))
        case (_, .string(let hash)?) where PasswordHasher.isHash(hash):
            // Already this host's own form (an export of another FunctionHost).
            fields["password"] = .string(hash)
        case (_, nil), (_, .null?):
            break
        default:
            throw DataAPIError(.incorrectType, "A _User password needs its salt (LeanCloud's export has both).")
        }
        if keepsSessionTokens, case .string(let token)? = token, !token.isEmpty {
            fields["sessionToken"] = .string(token)
        } else {
            fields["sessionToken"] = .string(DataService.newSessionToken())
        }
    }

    /// `createdAt`/`updatedAt` as canonical ISO text: an export writes them as plain strings,
    /// REST tools as Date values.
    private static func date(_ value: JSONValue?, field: String) throws(DataAPIError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            if let canonical = ISODate.normalized(text) { return canonical }
        case .object(let members)?:
            if case .string(let text)? = members["iso"], let canonical = ISODate.normalized(text) { return canonical }
        default: break
        }
        throw DataAPIError(.incorrectType, "Invalid \(field): expected an ISO 8601 date.")
    }

    /// A 24-hex id derived from the line's bytes, as LeanCloud's own ids are 24 hex digits.
    static func stableId(for line: some Collection<UInt8>) -> String {
        let digest = SHA256.hash(data: Array(line))
        return digest.prefix(12).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
