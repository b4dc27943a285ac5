import JSON

/// What an update or delete reads before it writes, and what a before-hook is handed: the steps
/// of `create`, `update` and `delete` between their authorization and their write.
extension DataService {
    /// What a before-hook of this write is handed (the body applied to `current`), when one runs.
    func applying(
        _ operation: HookedWrite, _ body: [String: JSONValue], to current: [String: JSONValue], className: String,
        hooks: OperationHooks, storage: any StorageEngine
    ) throws(DataAPIError) -> AppliedWrite? {
        guard hooks.willRun(operation.before, className) else { return nil }
        return try AppliedWrite(sent: body, current: current, normalizer: normalizer(for: storage))
    }

    /// Whether a write must read the object first: a hook or a listener will be shown it.
    func needsOriginal(_ operation: HookedWrite, _ className: String, _ hooks: OperationHooks) -> Bool {
        if !Names.internalClasses.contains(className), listeners.contains(where: { $0.hears(className) }) { return true }
        return hooks.willRun(operation.before, className) || hooks.willRun(operation.after, className)
    }

    /// The object an update or delete changes, read before the write when something must see it
    /// first (hooks, listeners; a user's or role's update checks its stored fields) and checked
    /// then (`check`); nil when nothing does: the write then reads it in its transaction only.
    func original(
        _ operation: HookedWrite, _ className: String, id: String, hooks: OperationHooks, check: RowCheck?,
        in storage: any StorageEngine
    ) async throws -> StoredObject? {
        let prepared = operation.kind == .update && (className == "_User" || className == "_Role")
        guard prepared || needsOriginal(operation, className, hooks) else { return nil }
        guard let object = try await storage.fetch(className, id: id) else {
            // Read for listeners alone, a missing object is the write's to answer, as without
            // them (a conditional delete's is 305, not 101); a write of nothing is heard by no one.
            let hooked = prepared || hooks.willRun(operation.before, className) || hooks.willRun(operation.after, className)
            if !hooked { return nil }
            throw DataAPIError(.objectNotFound, "Object not found.")
        }
        try check?(object)
        return object
    }
}
