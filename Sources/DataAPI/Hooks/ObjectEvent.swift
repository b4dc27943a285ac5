public import JSON

/// One operation on a class's object, as the hooks around it see it and as listeners hear it
/// once it committed: the one value a hooked write is, from its before-hook through the write
/// to its after-hook. Hooks receive it inside their request (`HookRequest.event`), change it in
/// place, and hand it back; nothing copies it field by field.
public struct ObjectEvent: Sendable {
    /// The class written or queried (for `onVerified`, the channel: `sms` or `email`).
    public var className: String
    /// The object's fields: before a save or update, the object with the client's changes
    /// applied to the stored one (as LeanEngine hands it: an `Increment` shows the new number,
    /// never the operation; `updatedKeys` names what the client changed); the stored object after
    /// a write or before a delete; for find hooks, the query as REST JSON (`where`, `order`, ...).
    public var object: [String: JSONValue]
    /// The body of a save or update as the client sent it, operations included
    /// (`{"__op":"Increment","amount":-3}`), for its before- and after-hooks: read only, the
    /// write is made from `object`. Empty for other operations.
    public internal(set) var sent: [String: JSONValue]
    /// The stored object before an update or delete.
    public var original: StoredObject?
    /// The keys an update changes.
    public var updatedKeys: [String]
    /// The keys a before-hook set or unset, when its runtime tracks them (JavaScript's
    /// `dirtyKeys()`); nil when it doesn't (Swift), and then a key counts as changed when its
    /// value differs from what the hook was handed. A key set back to the value it was handed
    /// (a relation's, which looks the same after any relation operation) is still changed.
    public var changedKeys: Set<String>?
    /// Results of a query, for `afterFind`.
    public var results: [StoredObject]
    /// Values a before-hook passes to the after-hook of the same operation.
    public var context: [String: JSONValue]
    /// Who made the request.
    public var caller: Caller

    /// Creates an event.
    public init(
        className: String, object: [String: JSONValue], original: StoredObject? = nil, updatedKeys: [String] = [],
        results: [StoredObject] = [], context: [String: JSONValue] = [:], sent: [String: JSONValue] = [:],
        caller: Caller
    ) {
        self.className = className
        self.object = object
        self.sent = sent
        self.original = original
        self.updatedKeys = updatedKeys
        self.results = results
        self.context = context
        self.caller = caller
    }

    /// The event of the same operation after its write: the stored object, the keys it
    /// changed, and what the before-hook left in `context`.
    func after(_ stored: StoredObject, updatedKeys: [String]? = nil) -> ObjectEvent {
        var event = self
        event.object = stored.restJSON()
        if let updatedKeys { event.updatedKeys = updatedKeys }
        return event
    }
}

/// What the data service asks of the hooks around its operations. The Hooks module implements
/// it; only `DataService`'s hook runner (`DataService+Hooks.swift`) calls it.
package protocol WriteHooks: Sendable {
    /// The hooks an environment runs now, read once: an operation takes one at its start and
    /// asks only it afterwards (`OperationHooks`), so "is there a hook?" costs no lock after the
    /// first question, and a deploy landing mid-operation never runs half of each set.
    func snapshot(in environment: EnvironmentName) -> any HookSnapshot
}

/// The hooks of one environment as an operation found them at its start.
package protocol HookSnapshot: Sendable {
    /// Whether a hook of this kind is registered for the class.
    func contains(_ kind: HookKind, _ className: String) -> Bool

    /// Runs a before-hook: returns the event as the hook left it (its object is what gets
    /// written), or throws to reject the operation.
    func runBefore(_ kind: HookKind, _ event: ObjectEvent) async throws -> ObjectEvent

    /// Runs an after-hook once the operation committed. It never fails the operation: failures
    /// are the implementation's to log.
    func runAfter(_ kind: HookKind, _ event: ObjectEvent) async

    /// Runs an after-hook and throws what it threw, for a caller that answers the failure
    /// itself (no write depends on it).
    func runAfterAnswering(_ kind: HookKind, _ event: ObjectEvent) async throws
}

/// Hears every committed write of an app class, whatever path made it (REST, batch, users,
/// files, cloud code, imports that ask for hooks) and whether or not hooks ran: the source
/// LiveQuery and jobs subscribe to. Called after the write and its after-hook, in order.
public protocol WriteListener: Sendable {
    /// A write committed: `event.object` is the stored object (the deleted one for a delete),
    /// `event.original` what it was before an update or delete.
    func didWrite(_ kind: WriteKind, _ event: ObjectEvent) async

    /// A user logged in (LiveQuery's `login` event): `event.object` is the user, without its
    /// credentials. Heard after every successful login, by whatever means it proved itself.
    func didLogIn(_ event: ObjectEvent) async

    /// Whether the listener wants this class's writes now. A write reads the object before it
    /// changes it only for a listener that does (or a hook): LiveQuery with no subscription to
    /// the class costs an update or delete no read.
    func hears(_ className: String) -> Bool
}

extension WriteListener {
    /// Listeners that don't care about logins hear nothing.
    public func didLogIn(_ event: ObjectEvent) async {}

    /// A listener hears every class unless it says otherwise.
    public func hears(_ className: String) -> Bool { true }
}

/// What a committed write did.
public enum WriteKind: String, Sendable, Hashable {
    /// An object was created.
    case create
    /// An object was updated.
    case update
    /// An object was deleted.
    case delete
}
