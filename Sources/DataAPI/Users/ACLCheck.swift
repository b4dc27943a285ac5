import JSON

/// Who may read or write an object, by its ACL (`{"*": {"read": true}, "<userId>": {...},
/// "role:Name": {...}}`). An object without an ACL is open to all.
enum ACLCheck {
    /// The permission asked for.
    enum Permission: String {
        case read
        case write
    }

    /// A write the object's ACL refuses.
    static let writeRefused = DataAPIError(.operationForbidden, "Forbidden to write this object: its ACL doesn't allow it.")

    /// Whether one of `identities` holds `permission` on `object`.
    ///
    /// The ACL's keys are compared as bytes: the dictionary's lookup finds a key canonically
    /// equivalent to the identity (Swift's `String` hashing), so the key it found must also be
    /// the identity's bytes. (A JSON object holds one of any canonically equivalent keys.)
    static func allows(_ object: StoredObject, _ permission: Permission, to identities: [Identity]) -> Bool {
        guard case .object(let acl)? = object.fields["ACL"] else { return true }
        return identities.contains { identity in
            guard let index = acl.index(forKey: identity.text) else { return false }
            let (key, rights) = acl[index]
            return Identity(key) == identity && rights[permission.rawValue] == true
        }
    }
}

extension DataService {
    /// The identities a caller's access is checked with: `*`, the user's id, and `role:Name` for
    /// each role that has the user, directly or through child roles (a role's privileges go to
    /// the members of the roles in its `roles` relation). Nil for the master key, which
    /// bypasses ACLs.
    /// Role names are taken as stored: a name stored before names were normalised is its own
    /// identity, never the one it looks like.
    func identities(of caller: Caller) async throws -> [Identity]? {
        if caller.isMaster { return nil }
        guard let userId = caller.userId else { return [.everyone] }
        let generation = roleChanges.generation
        if let known = caller.roleMemo.identities(
            userId: userId, environment: caller.environment, roles: roleChanges, generation: generation)
        {
            return known
        }
        let identities = try await walkRoles(of: userId, in: storage(for: caller))
        caller.roleMemo.remember(
            identities, userId: userId, environment: caller.environment, roles: roleChanges, generation: generation)
        return identities
    }

    /// The identities of a user: `*`, its id, and every role that holds it, directly or through
    /// roles that hold roles.
    private func walkRoles(of userId: String, in storage: any StorageEngine) async throws -> [Identity] {
        var identities: [Identity] = [.everyone, Identity(userId)]
        guard try await storage.classExists("_Role") else { return identities }
        var seen: Set<String> = []
        var frontier = try await roles(in: storage, where: ["users": ["__type": "Pointer", "className": "_User", "objectId": .string(userId)]])
        // Each level up the hierarchy is one query; the depth bound stops a cycle of roles.
        for _ in 0..<16 where !frontier.isEmpty {
            var next: [StoredObject] = []
            for role in frontier where seen.insert(role.objectId).inserted {
                if let name = role.fields["name"]?.stringValue { identities.append(.role(name)) }
                next += try await roles(in: storage, where: ["roles": ["__type": "Pointer", "className": "_Role", "objectId": .string(role.objectId)]])
            }
            frontier = next
        }
        return identities
    }

    /// The roles matching a `where` condition, by storage (no ACL applies).
    func roles(in storage: any StorageEngine, where condition: JSONValue) async throws -> [StoredObject] {
        var query = ObjectQuery(className: "_Role", limit: ObjectQuery.maxLimit)
        query.predicate = try QueryPredicate(where: condition)
        return try await storage.find(query)
    }

    /// What a write of the caller checks on the object it changes: its ACL gives the caller
    /// write (119), and read too for a conditional write (119: its `where` would tell the caller
    /// what the fields hold); nil for the master key. A write hands
    /// it to the engine, which runs it on the row read inside the write's transaction.
    func rowCheck(_ access: Access, conditional: Bool) -> RowCheck? {
        guard let identities = access.identities else { return nil }
        return { object in
            guard ACLCheck.allows(object, .write, to: identities) else { throw ACLCheck.writeRefused }
            if conditional, !ACLCheck.allows(object, .read, to: identities) {
                throw DataAPIError(.operationForbidden, "A conditional write needs read access to the object.")
            }
        }
    }

    /// A write's `where` with its subqueries restricted to what the caller may find; the
    /// master key's as it is.
    func authorizedCondition(
        _ access: Access, _ className: String, _ condition: QueryPredicate?
    ) async throws -> QueryPredicate? {
        guard access.identities != nil else { return condition }
        return try await access.authorized(condition: condition, of: className)
    }
}
