public import JSON

/// Who is asking, and on whose behalf: what the data layer and the hooks around it need to know.
public struct Caller: Sendable, Hashable {
    /// Whether the request carries the master key, which bypasses class restrictions.
    public var isMaster: Bool
    /// The environment whose hooks run for this caller's writes: `production` or `staging`.
    public var environment: String
    /// The user the request acts for, as REST JSON (with `objectId`); nil when anonymous.
    public var user: JSONValue?
    /// How many hooks deep this request is: 0 for a client, 1 for writes a hook makes, ...
    public var hookDepth: Int
    /// Hooks this caller's writes skip (a hook saving its own object, `__ignore_hooks`).
    public var skippedHooks: Set<HookKind>
    /// Whether the request presented the hook key (`X-LC-Hook-Key`), which LeanEngine's SDKs
    /// send to skip hooks on purpose.
    public var presentedHookKey = false

    /// Whether the caller may name hooks to skip (`__ignore_hooks`): the master key or the hook
    /// key, as LeanCloud allows.
    public var mayIgnoreHooks: Bool { isMaster || presentedHookKey }

    /// Creates a caller.
    public init(
        isMaster: Bool, environment: String = "production", user: JSONValue? = nil, hookDepth: Int = 0,
        skippedHooks: Set<HookKind> = []
    ) {
        self.isMaster = isMaster
        self.environment = environment
        self.user = user
        self.hookDepth = hookDepth
        self.skippedHooks = skippedHooks
    }

    /// The id of the user the request acts for.
    public var userId: String? { user?["objectId"]?.stringValue }

    /// The master caller, used by the host itself.
    public static let master = Caller(isMaster: true)

    /// The same caller with every hook skipped: the data API's "without hooks".
    public var withoutHooks: Caller {
        var caller = self
        caller.skippedHooks = Set(HookKind.allCases)
        return caller
    }
}
