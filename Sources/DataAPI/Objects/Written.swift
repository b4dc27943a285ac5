/// What a create or update wrote, as its route answers it.
public struct Written: Sendable {
    /// The object as stored.
    public var object: StoredObject
    /// The keys the write changed (after the before-hook's changes).
    public var changedKeys: [String]
    /// Whether a before-hook ran, and so may have changed what was written: the answer then
    /// carries the fields it changed, so the client holds what was stored.
    public var ranBeforeHook: Bool
}
