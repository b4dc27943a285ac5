extension DataService {
    /// Deletes several objects of a class as one request (`DELETE /classes/{C}/a,b`, the JS
    /// SDK's `destroyAll`; the dialects' `POST /classes/{C}/delete`): every object is checked
    /// and every `beforeDelete` runs before the first is deleted, so one the caller may not
    /// delete, or that a hook refuses, deletes none. An id with no object is skipped, as
    /// LeanCloud does. Answers the ids deleted.
    public func deleteAll(
        _ className: String, ids: [String], condition: QueryPredicate? = nil, caller: Caller
    ) async throws -> [String] {
        var found: [String] = []
        for id in ids where !found.contains(id) {
            do {
                try await checkWrite(className, id: id, condition: condition, caller: caller, deleting: true)
                found.append(id)
            } catch let error as DataAPIError where error.code == .objectNotFound {
                continue
            }
        }
        let storage = storage(for: caller)
        let access = try await access(for: caller)
        var planned: [(id: String, condition: QueryPredicate?, event: ObjectEvent?)] = []
        for id in found {
            let objectCondition = try await checkObjectAccess(access, className, id: id, condition: condition)
            guard needsOriginal(.delete, className, caller) else {
                planned.append((id, objectCondition, nil))
                continue
            }
            // Gone since it was checked: nothing to delete, nothing for a hook to see.
            guard let original = try await storage.fetch(className, id: id) else { continue }
            let event = ObjectEvent(className: className, object: original.restJSON(), original: original, caller: caller)
            planned.append((id, objectCondition, try await runBefore(.beforeDelete, event) ?? event))
        }
        for item in planned { try await storage.delete(className, id: item.id, condition: item.condition) }
        for item in planned { if let event = item.event { await didWrite(.delete, event) } }
        return planned.map(\.id)
    }
}
