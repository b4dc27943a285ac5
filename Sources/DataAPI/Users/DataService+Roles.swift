import JSON

/// The rules of `_Role` writes from any path (`/roles`, `/classes/_Role`, batch, cloud code),
/// as LeanCloud's guides give them: a signed-in client may create a role, which must carry an
/// ACL; a role's own ACL says who may change it (its `users` and `roles` relations included);
/// its name is set once, by anyone, the master key included.
///
/// A role's name is an identity (`role:<name>` in ACLs and class permissions): it is stored in
/// its normal form (`Identity.normalized`) and compared as bytes, so no role can be created,
/// or renamed, into a spelling of another's name.
extension DataService {
    /// Checks a new role and normalises its name: a name of letters, digits, `_`, `-` and spaces,
    /// not taken (137), and, from a client, an ACL (111, Parse's "ACL is required.", which
    /// LeanCloud kept): a role without one would be open to every writer.
    ///
    /// The name is normalised before it is checked: `管\u{F9E4}员` is `管理员` once normalised, so
    /// it is refused as taken when `管理员` exists. (The unique index on `_Role.name` decides
    /// between concurrent creates; this check gives the usual answer first.)
    func checkNewRole(_ body: inout [String: JSONValue], caller: Caller) async throws {
        Identity.normalizeName(in: &body, of: "_Role")
        guard case .string(let name)? = body["name"], !name.isEmpty else { throw Self.invalidRoleName }
        guard name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_- ".unicodeScalars.contains($0) })
        else { throw Self.invalidRoleName }
        if !caller.isMaster, body["ACL"]?.objectValue == nil {
            throw DataAPIError(.incorrectType, "ACL is required.")
        }
        let storage = storage(for: caller)
        guard try await storage.classExists("_Role") else { return }
        if try await !roles(in: storage, where: ["name": .string(name)]).isEmpty {
            throw DataAPIError(.duplicateValue, "A role named '\(name)' exists.")
        }
    }

    /// What a name that isn't letters, digits, `_`, `-` and spaces answers.
    static let invalidRoleName = DataAPIError(.invalidKeyName, "A role needs a name of letters, digits, _, - and spaces.")

    /// Checks a change to role `id` (a client's: its ACL already allowed the write): the name
    /// stays what it was, byte for byte, whoever asks (139, LeanCloud's code for role names, as
    /// Parse and LeanCloud refuse renames), and a client can't remove the ACL.
    /// `stored` is the role as the update read it.
    func checkRoleUpdate(_ body: inout [String: JSONValue], stored: StoredObject, caller: Caller) throws(DataAPIError) {
        if !caller.isMaster, let acl = body["ACL"], acl.objectValue == nil {
            throw DataAPIError(.incorrectType, "ACL is required.")
        }
        guard let name = body["name"] else { return }
        let stored = stored.fields["name"]?.stringValue
        // The SDKs may send the name again with other changes: the same name is no change. By
        // bytes: a canonically equivalent spelling is a rename (`String`'s `==` would call it the
        // same and store it), unless it is the stored name once normalised.
        guard case .string(let given) = name, let stored,
            Identity(given) == Identity(stored) || Identity(Identity.normalized(given)) == Identity(stored)
        else {
            throw DataAPIError(.invalidRoleName, "A role's name can't be changed.")
        }
        body["name"] = .string(stored)
    }
}
