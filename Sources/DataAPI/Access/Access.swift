import JSON

/// One caller's rights, worked out once per operation: the authorization step every read and
/// write of `DataService` passes, whatever path it came by (REST, batch, CQL, include, the
/// JavaScript and Swift data APIs).
///
/// It decides three things, from the object ACLs, the class settings (class- and field-level
/// permissions) and the fields no client ever sees:
/// - whether the caller may do an action on a class (`check`);
/// - what a query may touch: every class, field and subquery in its whole predicate tree, with
///   the caller's read restriction put into each subquery, so a subquery can't learn more than a
///   query would (`authorized`);
/// - what of an object the caller is answered (`view`).
/// The master key is bound by none of it.
struct Access: Sendable {
    /// Who asks.
    let caller: Caller
    /// The caller's identities (`*`, the user's id, `role:Name`); nil for the master key.
    let identities: [Identity]?
    /// Where objects and settings are read.
    let service: DataService

    /// Whether the caller holds the master key.
    var isMaster: Bool { identities == nil }

    /// The engine the caller's data lives in.
    var storage: any StorageEngine { service.storage(for: caller) }

    /// Fields of a class that no client ever sees or queries, whatever the settings say.
    static func alwaysHidden(in className: String) -> Set<String> {
        switch className {
        case "_User": return DataService.hiddenUserFields
        // Sessions an export may bring along: their tokens are credentials.
        case "_Session": return ["sessionToken"]
        default: return []
        }
    }

    // MARK: Classes

    /// The settings in force for a class.
    func settings(of className: String) async throws -> ClassSettings {
        try await service.classSettings(of: className)
    }

    /// Whether the caller may do `action` on the class by its class-level permissions.
    func allows(_ action: ClassAction, on className: String) async throws -> Bool {
        guard reaches(className) else { return false }
        guard let identities else { return true }
        return try await settings(of: className).rule(for: action).allows(identities, userId: caller.userId)
    }

    /// Whether the caller may name a class at all. The host's internal classes are the master
    /// key's alone, and not cloud code's even as master (staging's code shares production's
    /// database); the classes holding deploys and secret variables are the host's alone: the
    /// master key reads them through the deploy API, which masks secrets.
    func reaches(_ className: String) -> Bool {
        guard Names.internalClasses.contains(className), !caller.actsAsHost else { return true }
        return isMaster && !caller.runsCloudCode && !Names.hostOnlyClasses.contains(className)
    }

    /// Refuses an action the class's permissions don't give the caller (403), or any action
    /// on the host's internal classes (119).
    func check(_ action: ClassAction, on className: String) async throws {
        try checkNotInternal(className)
        guard try await allows(action, on: className) else { throw Self.forbidden(action) }
    }

    /// The host's own classes (codes, outbox, deploys, settings) are the master key's alone.
    func checkNotInternal(_ className: String) throws(DataAPIError) {
        guard !reaches(className) else { return }
        if Names.deployClasses.contains(className) {
            throw DataAPIError(.operationForbidden, "\(className) is the host's own: deploys and variables are read through /1.1/engine.")
        }
        if Names.queueClasses.contains(className) {
            throw DataAPIError(.operationForbidden, "\(className) is the host's own: tasks and timers are managed through /1.1/engine.")
        }
        if Names.leaderboardClasses.contains(className) {
            throw DataAPIError(.operationForbidden, "\(className) is the host's own: leaderboards are managed through /1.1/leaderboard.")
        }
        if Names.consoleClasses.contains(className) {
            throw DataAPIError(.operationForbidden, "\(className) is the host's own: the console keeps its sessions.")
        }
        if caller.runsCloudCode {
            throw DataAPIError(.operationForbidden, "\(className) is the host's own: cloud code doesn't reach it.")
        }
        throw DataAPIError(.operationForbidden, "\(className) is read with the master key only.")
    }

    /// LeanCloud's answer to an action its class permissions refuse.
    static func forbidden(_ action: ClassAction) -> DataAPIError {
        DataAPIError(.forbiddenByClassPermissions, "Forbidden to \(action.rawValue) by class permissions.")
    }

    // MARK: Queries

    /// The query with every part checked and the caller's read restriction added at the top and
    /// in every subquery.
    ///
    /// - Throws: 119 for an internal class or a hidden field anywhere in it, 403 for a class
    ///   (the queried one or a subquery's) whose `find` the caller may not do. The master key
    ///   walks the same way: bound by no permission, it still reaches only the classes it may,
    ///   and names no credential (`checkQueryable`).
    func authorized(_ query: ObjectQuery) async throws -> ObjectQuery {
        var query = query
        for key in query.order { try await checkQueryable(key.key, of: query.className) }
        let predicate = try await authorized(query.predicate, of: query.className)
        query.predicate = Self.conjunction([predicate, try await findRestriction(on: query.className)])
        return query
    }

    /// A write's `where` condition checked as a query's, with subqueries restricted.
    func authorized(condition: QueryPredicate?, of className: String) async throws -> QueryPredicate? {
        try await authorized(condition, of: className)
    }

    /// What the caller may find of a class, as a predicate: the rows its ACL lets it read, and
    /// for `_User` with `find` closed, its own row only (LeanCloud's rule: not an error).
    ///
    /// - Throws: 403 when the class's `find` is closed to the caller (other than `_User`).
    private func findRestriction(on className: String) async throws -> QueryPredicate? {
        try checkNotInternal(className)
        guard let identities else { return nil }
        var parts: [QueryPredicate] = [.readableBy(identities)]
        if try await !allows(.find, on: className) {
            guard className == "_User" else { throw Self.forbidden(.find) }
            parts.append(caller.userId.map { .compare(key: "objectId", .equal, .string($0)) } ?? .or([]))
        }
        return .and(parts)
    }

    private func authorized(_ predicate: QueryPredicate?, of className: String) async throws -> QueryPredicate? {
        guard let predicate else { return nil }
        switch predicate {
        case .and(let parts):
            var checked: [QueryPredicate] = []
            for part in parts { if let part = try await authorized(part, of: className) { checked.append(part) } }
            return .and(checked)
        case .or(let parts):
            var checked: [QueryPredicate] = []
            for part in parts { if let part = try await authorized(part, of: className) { checked.append(part) } }
            return .or(checked)
        case .compare(let key, _, _), .oneOf(let key, _, _), .exists(let key, _), .containsAll(let key, _),
            .size(let key, _), .regex(let key, _, _), .nearSphere(let key, _, _), .withinBox(let key, _, _),
            .withinPolygon(let key, _):
            try await checkQueryable(key, of: className)
            return predicate
        case .matchesQuery(let key, let subquery, let negated):
            try await checkQueryable(key, of: className)
            return .matchesQuery(key: key, try await authorized(subquery), negated: negated)
        case .matchesKeyInQuery(let key, let subquery, let subKey, let negated):
            try await checkQueryable(key, of: className)
            try await checkQueryable(subKey, of: subquery.className)
            return .matchesKeyInQuery(key: key, try await authorized(subquery), subKey: subKey, negated: negated)
        case .relatedTo(let ownerClass, let ownerId, let field):
            try checkNotInternal(ownerClass)
            try await checkQueryable(field, of: ownerClass)
            // An owner the caller can't get has no members it may list: as if it didn't exist.
            if !isMaster, try await !canGet(ownerClass, id: ownerId) { return .or([]) }
            return predicate
        case .readableBy:
            return predicate
        }
    }

    private func authorized(_ subquery: Subquery) async throws -> Subquery {
        let inner = try await authorized(subquery.predicate, of: subquery.className)
        let restriction = try await findRestriction(on: subquery.className)
        return Subquery(className: subquery.className, predicate: Self.conjunction([inner, restriction]))
    }

    /// Whether the caller may get this object: its class's `get` and its ACL allow it.
    private func canGet(_ className: String, id: String) async throws -> Bool {
        guard try await allows(.get, on: className) else { return false }
        guard let object = try await storage.fetch(className, id: id) else { return false }
        return canRead(object)
    }

    /// Refuses a hidden field (or a dotted path into one) in a condition or an order.
    ///
    /// Credentials (password hashes, session tokens, login counters) are refused to the master
    /// key too, and so to cloud code acting as master: answers never carry them, but a filter on
    /// one is an oracle that reads it a character at a time (a `$gte` walk read a session token
    /// in 131 queries). Only the host's own lookups (`Caller.actsAsHost`) may name them.
    func checkQueryable(_ key: String, of className: String) async throws {
        let field = String(key.split(separator: ".", maxSplits: 1).first ?? "")
        if Self.alwaysHidden(in: className).contains(field) {
            guard caller.actsAsHost else { throw Self.forbiddenField(field) }
            return
        }
        guard !isMaster else { return }
        let flags = try await settings(of: className).flags(of: field)
        if flags.hidden || flags.userPrivate { throw Self.forbiddenField(field) }
    }

    private static func forbiddenField(_ field: String) -> DataAPIError {
        DataAPIError(.operationForbidden, "Forbidden to query the field \(field).")
    }

    private static func conjunction(_ parts: [QueryPredicate?]) -> QueryPredicate? {
        let present = parts.compactMap { $0 }
        return present.count <= 1 ? present.first : .and(present)
    }

    // MARK: Objects

    /// Whether the object's ACL lets the caller read it.
    func canRead(_ object: StoredObject) -> Bool {
        identities.map { ACLCheck.allows(object, .read, to: $0) } ?? true
    }

    /// The object as the caller is answered it: without the fields hidden from clients, and
    /// for `_User`, without the private fields unless it is the caller's own user.
    func view(_ object: StoredObject) async throws -> StoredObject {
        guard !isMaster else { return object }
        return try await view(object, asUser: caller.userId)
    }

    /// The object as the user `userId` is answered it (a signup or login answers the new
    /// user its own view, though the request came from nobody).
    func view(_ object: StoredObject, asUser userId: String?) async throws -> StoredObject {
        var object = object
        for field in Self.alwaysHidden(in: object.className) { object.fields[field] = nil }
        let own = object.className == "_User" && userId != nil && object.objectId == userId
        for (field, flags) in try await settings(of: object.className).fields
        where flags.hidden || (flags.userPrivate && !own) {
            object.fields[field] = nil
        }
        return object
    }

    // MARK: Writes

    /// Refuses a client's write of a `read_only` field (117), or of a field the class doesn't
    /// have yet when its `add_fields` is closed to the caller (403).
    func checkWritableFields(_ body: [String: JSONValue], of className: String) async throws {
        guard let identities else { return }
        let settings = try await settings(of: className)
        for key in body.keys where settings.flags(of: key).readOnly {
            throw DataAPIError(.readOnlyField, "The field \(key) is read-only.")
        }
        guard !settings.rule(for: .addFields).allows(identities, userId: caller.userId) else { return }
        let known = try await storage.fieldTypes(of: className)
        for key in body.keys where known[key] == nil && Names.isValidFieldName(key) && key != "ACL" {
            throw Self.forbidden(.addFields)
        }
    }
}
