public import JSON

/// What the data service asks of the hooks around its operations. The Hooks module implements
/// it; `DataService` calls it on every path, so a hook can't be bypassed by accident.
public protocol WriteHooks: Sendable {
    /// Whether a hook of this kind is registered for the class in the caller's environment:
    /// without one, the service skips the work of preparing its request.
    func hasHook(_ kind: HookKind, for className: String, caller: Caller) -> Bool

    /// Runs a before-hook: returns the event as the hook left it (its object is what gets
    /// written), or throws to reject the operation.
    func runBefore(_ kind: HookKind, _ event: HookEvent) async throws -> HookEvent

    /// Runs an after-hook once the operation committed. It never fails the operation: failures
    /// are the implementation's to log.
    func runAfter(_ kind: HookKind, _ event: HookEvent) async
}

/// What a hook sees of one operation, and what a before-hook hands back.
public struct HookEvent: Sendable {
    /// The class written or queried.
    public var className: String
    /// The object's fields: the client's data before a save or update (only the changed keys
    /// for an update), the stored object after it; for find hooks, the query as REST JSON
    /// (`where`, `order`, `limit`, ...).
    public var object: [String: JSONValue]
    /// The stored object before an update or delete.
    public var original: StoredObject?
    /// The keys an update changes.
    public var updatedKeys: [String]
    /// Results of a query, for `afterFind`.
    public var results: [StoredObject]
    /// Values a before-hook passes to the after-hook of the same operation.
    public var context: [String: JSONValue]
    /// Who made the request.
    public var caller: Caller

    /// Creates an event.
    public init(
        className: String, object: [String: JSONValue], original: StoredObject? = nil, updatedKeys: [String] = [],
        results: [StoredObject] = [], context: [String: JSONValue] = [:], caller: Caller
    ) {
        self.className = className
        self.object = object
        self.original = original
        self.updatedKeys = updatedKeys
        self.results = results
        self.context = context
        self.caller = caller
    }
}
