public import DataAPI

/// Where a `HookDispatcher` reads the hooks of an environment, at each operation.
public protocol HookSource: Sendable {
    /// The hooks an environment runs now.
    func hooks(in environment: EnvironmentName) -> HookRegistry
}

/// The hooks of one environment: at most one handler per kind and class, registered before the
/// host starts (Swift) or when code is loaded (JavaScript).
public struct HookRegistry: HookSource {
    /// A hook: changes the request in place (before-hooks), or throws to reject.
    public typealias Handler = @Sendable (inout HookRequest) async throws -> Void

    struct Key: Hashable, Sendable {
        var kind: HookKind
        var className: String
    }

    /// A registered hook, and whether it ends at its request's deadline by itself.
    struct Entry: Sendable {
        var handler: Handler
        var keepsDeadline: Bool
    }

    private(set) var handlers: [Key: Entry] = [:]

    /// Why the writes a before-hook could check are refused now, when they are: the hooks of an
    /// app's engine that hasn't listed them yet, which may check any class. A write it could
    /// check waits for none and is not made unchecked (503).
    public var heldWrites: String?

    /// The kinds `heldWrites` refuses: every before-hook of a write or a login.
    static let heldKinds: Set<HookKind> = [.beforeSave, .beforeUpdate, .beforeDelete, .onLogin, .onAuthData]

    /// An empty registry.
    public init() {}

    /// Whether `heldWrites` refuses an operation a hook of this kind would check.
    func holds(_ kind: HookKind) -> Bool {
        heldWrites != nil && Self.heldKinds.contains(kind)
    }

    /// The same hooks in every environment.
    public func hooks(in environment: EnvironmentName) -> HookRegistry { self }

    /// Registers a hook. Registering the same kind and class twice is a programming error.
    ///
    /// - Parameter keepsDeadline: whether the handler itself ends at `request.deadline` (as
    ///   JavaScript hooks do, in their sandbox); otherwise the dispatcher races it against a timer.
    public mutating func define(
        _ kind: HookKind, _ className: String, keepsDeadline: Bool = false, _ handler: @escaping Handler
    ) {
        let key = Key(kind: kind, className: className)
        precondition(handlers[key] == nil, "The \(kind.rawValue) hook of \(className) is defined twice.")
        handlers[key] = Entry(handler: handler, keepsDeadline: keepsDeadline)
    }

    /// Whether a hook of this kind is registered for the class.
    public func contains(_ kind: HookKind, _ className: String) -> Bool {
        handlers[Key(kind: kind, className: className)] != nil
    }

    /// The hook for a kind and class.
    func entry(_ kind: HookKind, _ className: String) -> Entry? {
        handlers[Key(kind: kind, className: className)]
    }

    /// Every registered hook as LeanEngine names it (`__before_save_for_Todo`), sorted.
    public var functionNames: [String] {
        handlers.keys.map { $0.kind.functionName(for: $0.className) }.sorted()
    }

    /// Adds every hook of `other` that this registry doesn't have; returns the ones it had.
    public mutating func merge(_ other: HookRegistry) -> [(kind: HookKind, className: String)] {
        var clashes: [(HookKind, String)] = []
        for (key, handler) in other.handlers {
            if handlers[key] == nil { handlers[key] = handler } else { clashes.append((key.kind, key.className)) }
        }
        return clashes
    }

    /// Registers a `beforeSave` hook.
    public mutating func beforeSave(_ className: String, _ handler: @escaping Handler) {
        define(.beforeSave, className, handler)
    }
    /// Registers an `afterSave` hook.
    public mutating func afterSave(_ className: String, _ handler: @escaping Handler) {
        define(.afterSave, className, handler)
    }
    /// Registers a `beforeUpdate` hook.
    public mutating func beforeUpdate(_ className: String, _ handler: @escaping Handler) {
        define(.beforeUpdate, className, handler)
    }
    /// Registers an `afterUpdate` hook.
    public mutating func afterUpdate(_ className: String, _ handler: @escaping Handler) {
        define(.afterUpdate, className, handler)
    }
    /// Registers a `beforeDelete` hook.
    public mutating func beforeDelete(_ className: String, _ handler: @escaping Handler) {
        define(.beforeDelete, className, handler)
    }
    /// Registers an `afterDelete` hook.
    public mutating func afterDelete(_ className: String, _ handler: @escaping Handler) {
        define(.afterDelete, className, handler)
    }
    /// Registers a `beforeFind` hook.
    public mutating func beforeFind(_ className: String, _ handler: @escaping Handler) {
        define(.beforeFind, className, handler)
    }
    /// Registers an `afterFind` hook.
    public mutating func afterFind(_ className: String, _ handler: @escaping Handler) {
        define(.afterFind, className, handler)
    }
    /// Registers the `onLogin` hook: runs before a login completes; a throw refuses it.
    public mutating func onLogin(_ handler: @escaping Handler) {
        define(.onLogin, "_User", handler)
    }
    /// Registers an `onVerified` hook for `sms` or `email`: runs after the user verified it.
    public mutating func onVerified(_ channel: String, _ handler: @escaping Handler) {
        precondition(channel == "sms" || channel == "email", "onVerified takes 'sms' or 'email'.")
        define(.onVerified, channel, handler)
    }
    /// Registers the `onAuthData` hook: may change `request.object["authData"]`, or throw to refuse it.
    public mutating func onAuthData(_ handler: @escaping Handler) {
        define(.onAuthData, "_User", handler)
    }
    /// Registers the `beforeSaveFile` hook: runs before a file's bytes are stored, with
    /// `request.object` holding its `name`, `mime_type`, `metaData` and announced `size`. It may
    /// change the name, type or metadata, or throw to refuse the upload.
    public mutating func beforeSaveFile(_ handler: @escaping Handler) {
        define(.beforeSaveFile, "_File", handler)
    }
    /// Registers the `afterSaveFile` hook: runs once the file and its `_File` object are stored.
    public mutating func afterSaveFile(_ handler: @escaping Handler) {
        define(.afterSaveFile, "_File", handler)
    }
    /// Registers the `beforeDeleteFile` hook: runs before a file is deleted; a throw keeps it.
    public mutating func beforeDeleteFile(_ handler: @escaping Handler) {
        define(.beforeDeleteFile, "_File", handler)
    }
    /// Registers the `afterDeleteFile` hook: runs once a file and its bytes are gone.
    public mutating func afterDeleteFile(_ handler: @escaping Handler) {
        define(.afterDeleteFile, "_File", handler)
    }
    /// Registers a `beforeSubscribe` hook: runs before a LiveQuery subscription to the class is
    /// made, with `request.object` the query (`where`, `keys`, ...); it may narrow it, or throw
    /// to refuse the subscription.
    public mutating func beforeSubscribe(_ className: String, _ handler: @escaping Handler) {
        define(.beforeSubscribe, className, handler)
    }
    /// Registers an `afterLiveQueryEvent` hook: runs before each LiveQuery event of the class
    /// reaches a subscriber, with `request.object` the object as the subscriber sees it and
    /// `request.context["op"]` the operation; it may change the object, or throw to drop it.
    public mutating func afterLiveQueryEvent(_ className: String, _ handler: @escaping Handler) {
        define(.afterLiveQueryEvent, className, handler)
    }
}
