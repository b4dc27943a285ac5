extension DataService {
    /// The most ids one multi-object delete may name (`DELETE /classes/{C}/a,b,...`, a
    /// dialect's `objectIds`, `_File` too): each costs reads and a hook, so a URL or a batch item
    /// naming thousands would hold the server for seconds.
    public static let maxDeleteIds = 1000

    /// Refuses a multi-object delete naming more than `maxDeleteIds` ids (107), before any of
    /// them is read.
    public static func checkDeleteCount(_ ids: [String]) throws(DataAPIError) {
        guard ids.count <= maxDeleteIds else {
            throw DataAPIError(.malformedJSON, "A multi-object delete names at most \(maxDeleteIds) objects; this one names \(ids.count).")
        }
    }

    /// Deletes several objects of a class as one request (`DELETE /classes/{C}/a,b`, the JS
    /// SDK's `destroyAll`; the dialects' `POST /classes/{C}/delete`): every object is checked
    /// and every `beforeDelete` runs before anything is deleted, then the deletes are one
    /// storage transaction, so one object the caller may not delete, that a hook refuses, or
    /// that no longer matches `condition` (305) deletes none. `afterDelete` runs once it
    /// committed, for each object it deleted. An id with no object is skipped, as LeanCloud
    /// does. Answers the ids deleted.
    ///
    /// - Throws: 107 for more than `maxDeleteIds` ids.
    public func deleteAll(
        _ className: String, ids: [String], condition: QueryPredicate? = nil, caller: Caller
    ) async throws -> [String] {
        try Self.checkDeleteCount(ids)
        var named = Set<String>()
        var found: [String] = []
        for id in ids where named.insert(id).inserted {
            do {
                try await checkWrite(className, id: id, condition: condition, caller: caller, deleting: true)
                found.append(id)
            } catch let error as DataAPIError where error.code == .objectNotFound {
                continue
            }
        }
        let storage = storage(for: caller)
        let condition = try await authorizedCondition(try await access(for: caller), className, condition)
        var planned: [String] = []
        var events: [String: ObjectEvent] = [:]
        let hooks = operationHooks(for: caller)
        for id in found {
            guard needsOriginal(.delete, className, hooks) else {
                planned.append(id)
                continue
            }
            // Gone since it was checked: nothing to delete, nothing for a hook to see.
            guard let original = try await storage.fetch(className, id: id) else { continue }
            let event = ObjectEvent(className: className, object: original.restJSON(), original: original, caller: caller)
            events[id] = try await hooks.runBefore(.beforeDelete, event) ?? event
            planned.append(id)
        }
        // All or none: an object changed since its check (so it no longer matches) rolls back
        // the others; one deleted meanwhile by someone else is skipped and gets no afterDelete here.
        let deleted = try await storage.delete(className, ids: planned, condition: condition)
        if className == "_Role", !deleted.isEmpty { roleChanges.bump() }
        for id in deleted { if let event = events[id] { await didWrite(.delete, event, hooks: hooks) } }
        return deleted
    }
}
