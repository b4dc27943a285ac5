import JSON

/// Writes the host makes together, as one transaction under a lock (`StorageEngine.write(_:lockedBy:)`):
/// the follow graph's two rows, which are both there or both gone.
extension DataService {
    /// A create for `writeLocked`: `body` read as a create's (values, pointers, ACL), under `objectId`.
    func lockedCreate(_ className: String, body: [String: JSONValue], objectId: String, caller: Caller) throws(DataAPIError)
        -> LockedWrite
    {
        var changes = try ObjectChanges(body: body, normalizer: normalizer(for: storage(for: caller)))
        changes.objectId = objectId
        return .create(className, changes)
    }

    /// Runs `writes` as one transaction under the lock `key` names, once the one authorization
    /// step let `caller` make each; listeners hear every object created or deleted once it
    /// committed. No before-hook runs (the host's own rows, written as the server without hooks).
    func writeLocked(_ writes: [LockedWrite], lockedBy key: String, caller: Caller) async throws -> [[StoredObject]] {
        let access = try await access(for: caller)
        for write in writes {
            switch write {
            case .create(let className, _):
                try checkWritable(className, id: nil, caller: caller)
                try await access.check(.create, on: className)
            case .delete(let className, let ids):
                try checkWritable(className, id: ids.first, caller: caller)
                try await access.check(.delete, on: className)
            }
        }
        let results = try await storage(for: caller).write(writes, lockedBy: key)
        let hooks = operationHooks(for: caller)
        for (write, objects) in zip(writes, results) {
            for object in objects {
                if case .create = write {
                    await didWrite(.create, ObjectEvent(className: object.className, object: object.restJSON(), caller: caller), hooks: hooks)
                } else {
                    let event = ObjectEvent(className: object.className, object: object.restJSON(), original: object, caller: caller)
                    await didWrite(.delete, event, hooks: hooks)
                }
            }
        }
        return results
    }
}
