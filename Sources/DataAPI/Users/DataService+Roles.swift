import JSON

/// The rules of `_Role` writes from any path (`/roles`, `/classes/_Role`, batch, cloud code),
/// as LeanCloud's guides give them: a signed-in client may create a role, which must carry an
/// ACL; a role's own ACL says who may change it (its `users` and `roles` relations included);
/// its name is set once. The master key is bound by the name's form only.
extension DataService {
    /// Checks a new role: a name of letters, digits, `_`, `-` and spaces not taken (137), and,
    /// from a client, an ACL (111, Parse's "ACL is required.", which LeanCloud kept): a role
    /// without one would be open to every writer.
    func checkNewRole(_ body: [String: JSONValue], caller: Caller) async throws {
        guard let name = body["name"]?.stringValue, !name.isEmpty,
            name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || "_- ".unicodeScalars.contains($0) })
        else {
            throw DataAPIError(.invalidKeyName, "A role needs a name of letters, digits, _, - and spaces.")
        }
        if !caller.isMaster, body["ACL"]?.objectValue == nil {
            throw DataAPIError(.incorrectType, "ACL is required.")
        }
        let storage = storage(for: caller)
        guard try await storage.classExists("_Role") else { return }
        if try await !roles(in: storage, where: ["name": .string(name)]).isEmpty {
            throw DataAPIError(.duplicateValue, "A role named '\(name)' exists.")
        }
    }

    /// Checks a client's change to role `id` (its ACL already allowed the write): the name
    /// stays what it was (139, LeanCloud's code for role names), and the ACL can't be removed.
    func checkRoleUpdate(_ body: [String: JSONValue], id: String, caller: Caller) async throws {
        guard !caller.isMaster else { return }
        if let acl = body["ACL"], acl.objectValue == nil {
            throw DataAPIError(.incorrectType, "ACL is required.")
        }
        guard let name = body["name"] else { return }
        let stored = try await storage(for: caller).fetch("_Role", id: id)?.fields["name"]
        // The SDKs may send the name again with other changes: the same name is no change.
        if name != stored { throw DataAPIError(.invalidRoleName, "A role's name can't be changed.") }
    }
}
