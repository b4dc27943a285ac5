package import CallSupport
public import DataAPI
public import JSON
public import Logging

/// What a hook handler receives, and (for before-hooks) changes: the operation's one
/// `ObjectEvent`, with the hook's deadline, logger and data API around it.
///
/// ```swift
/// hooks.beforeSave("Todo") { request in
///     guard request.object["title"]?.stringValue?.isEmpty == false else {
///         throw HookError(code: 142, message: "A todo needs a title.")
///     }
///     request.object["title"] = .string(request.object["title"]!.stringValue!.trimmed)
/// }
/// ```
public struct HookRequest: Sendable {
    /// The kind of hook running.
    public let kind: HookKind
    /// The operation: what the data service hands the hook and takes back from it.
    public var event: ObjectEvent
    /// When the hook must have finished.
    public let deadline: ContinuousClock.Instant
    /// A logger tagged with the hook's kind and class.
    public var logger: Logger { taggedLogger.logger }
    /// The logger and its tags, apart until something is logged.
    package let taggedLogger: TaggedLogger
    /// The data API, acting as the request's caller (its user's ACL rights; the master key
    /// when the request carried it, `data.asMaster` otherwise), one hook deeper than the
    /// request: its writes run hooks (use `data.withoutHooks` to save this very object without
    /// running them again).
    public let data: DataClient

    /// The class of the object.
    public var className: String { event.className }
    /// The object: before a save or update, the object with the client's changes applied to
    /// the stored one (an `Increment` of 10 by -3 shows `7`), as LeanEngine hands it; the stored
    /// object after a write or before a delete. A before-hook's changes to it are what is
    /// written: a key left as handed keeps the client's operation (atomic), a changed key is
    /// set, a removed key is deleted. For find hooks, the query's REST parameters.
    public var object: [String: JSONValue] {
        get { event.object }
        set { event.object = newValue }
    }
    /// The body of a save or update as the client sent it, operations included
    /// (`{"__op":"Increment","amount":-3}`), for its before- and after-hooks; read only (the
    /// write is made from `object`). Empty for other hooks.
    public var sent: [String: JSONValue] { event.sent }
    /// The stored object before an update or delete.
    public var original: StoredObject? { event.original }
    /// The keys an update changes (LeanEngine's `updatedKeys`).
    public var updatedKeys: [String] { event.updatedKeys }
    /// The results of a query, which `afterFind` may change.
    public var results: [StoredObject] {
        get { event.results }
        set { event.results = newValue }
    }
    /// Values the before-hook leaves for the after-hook of the same operation.
    public var context: [String: JSONValue] {
        get { event.context }
        set { event.context = newValue }
    }
    /// The user who made the request, as REST JSON; nil when anonymous.
    public var user: JSONValue? { event.caller.user }
    /// The environment the hook runs in.
    public var environment: EnvironmentName { event.caller.environment }
}
