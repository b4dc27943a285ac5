public import JSON

extension DataService {
    /// Checks, without writing, what `create` (`id` nil), `update` or (`deleting`) `delete` would
    /// check before running any hook: the class rules and permissions, the fields `body` writes,
    /// then for an existing object the caller's write access, that the object
    /// exists (101) and that it matches `condition` (305), in that order, so the answer tells
    /// the caller nothing the write itself wouldn't. A multi-object save checks every object
    /// first, so one refused object fails the call before any other is written.
    public func checkWrite(
        _ className: String, id: String?, body: [String: JSONValue] = [:], condition: QueryPredicate?, caller: Caller,
        deleting: Bool = false
    ) async throws {
        try checkWritable(className, id: id, caller: caller)
        let access = try await access(for: caller)
        try await access.check(deleting ? .delete : id == nil ? .create : .update, on: className)
        if !deleting { try await access.checkWritableFields(body, of: className) }
        guard let id else { return }
        // Read once: its ACL is checked on it, and its absence is the 101.
        let object = try await access.storage.fetch(className, id: id)
        if let object, let check = rowCheck(access, conditional: condition != nil) { try check(object) }
        let condition = try await authorizedCondition(access, className, condition)
        guard object != nil else { throw DataAPIError(.objectNotFound, "Object not found.") }
        guard let condition else { return }
        // The predicate the update's transaction checks, as a one-row query.
        let query = ObjectQuery(
            className: className, predicate: .and([.compare(key: "objectId", .equal, .string(id)), condition]), limit: 1)
        if try await access.storage.find(query).isEmpty { throw DataAPIError.noEffect }
    }
}
