public import JSON

/// Who is asking, and on whose behalf: what the data layer and the hooks around it need to know.
///
/// Built once per request (by the host's authentication) and passed down; what acts on the
/// request's behalf derives its own from it (`forSwiftCode`, `forScriptCall`, `asServer`, `nested`) rather than building one
/// from loose parts, so the environment and the hook depth always travel with it.
public struct Caller: Sendable, Hashable {
    /// Whether the request carries the master key, which bypasses class restrictions.
    public var isMaster: Bool
    /// The environment whose hooks run for this caller's writes, and whose data they reach.
    public var environment: EnvironmentName
    /// The user the request acts for, as REST JSON (with `objectId`); nil when anonymous.
    public var user: JSONValue?
    /// How many hooks deep this request is: 0 for a client, 1 for writes a hook makes, ...
    public var hookDepth: Int
    /// Hooks this caller's writes skip (a hook saving its own object, `__ignore_hooks`).
    public var skippedHooks: Set<HookKind>
    /// Whether the request presented the hook key (`X-LC-Hook-Key`), which LeanEngine's SDKs
    /// send to skip hooks on purpose.
    public var presentedHookKey = false
    /// Whether cloud code (a JavaScript or Swift function or hook) makes the request. Cloud code
    /// reaches none of the host's internal classes, even as master: staging's code, which any
    /// client runs with `X-LC-Prod: 0`, shares production's database by default, and those
    /// classes hold production's deploys, secrets, codes and class settings.
    package var runsCloudCode = false
    /// Whether the host itself makes the request (its deploy store, upload tokens, codes): the
    /// only caller that reaches the classes holding deploys and secret variables
    /// (`Names.deployClasses`). No request a client, a key or a script sends is one.
    package var actsAsHost = false
    /// The caller's roles as the request's first check walked them: its other checks reuse
    /// them (`DataService.identities(of:)`). Shared by the copies of this value; a caller built
    /// anew (`forSwiftCode`, `nested`, ...) starts empty.
    package let roleMemo = RoleMemo()

    /// Whether the caller may name hooks to skip (`__ignore_hooks`): the master key or the hook
    /// key, as LeanCloud allows.
    public var mayIgnoreHooks: Bool { isMaster || presentedHookKey }

    /// Creates a caller.
    public init(
        isMaster: Bool, environment: EnvironmentName = .production, user: JSONValue? = nil, hookDepth: Int = 0,
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

    /// The master caller of production, used by the host itself (and only by it: a request
    /// with the master key is a `Caller(isMaster: true)`, which reaches no deploy records).
    public static let master: Caller = {
        var caller = Caller(isMaster: true)
        caller.actsAsHost = true
        return caller
    }()

    /// The same caller with every hook skipped: the data API's "without hooks".
    public var withoutHooks: Caller {
        var caller = self
        caller.skippedHooks = Set(HookKind.allCases)
        return caller
    }

    /// Who Swift cloud code (functions, and hooks' `data`) acts as for this request: the
    /// caller itself, its user and **its master key** when it carried one, in its environment and
    /// depth; the hooks the request skipped are its own, not the code's. Swift code is the app's
    /// own server code, written for this host: it gets the request's rights and asks for more
    /// with `data.asMaster`.
    public var forSwiftCode: Caller {
        var caller = Caller(isMaster: isMaster, environment: environment, user: user, hookDepth: hookDepth)
        caller.runsCloudCode = true
        return caller
    }

    /// Who one data call of JavaScript cloud code acts as, as LeanEngine's SDK decides it: each
    /// call names its identity (`useMasterKey`, or a user's `sessionToken`); a call naming none
    /// acts as the app with no user, **whatever key the request carried**. Code ported from
    /// LeanEngine is written to that rule, and a promise shared between calls makes "whose step
    /// is running" no identity. Environment and depth are the request's.
    public func forScriptCall(useMasterKey: Bool, user: JSONValue?) -> Caller {
        var caller = Caller(isMaster: useMasterKey, environment: environment, user: useMasterKey ? nil : user, hookDepth: hookDepth)
        caller.runsCloudCode = true
        return caller
    }

    /// The app with no user and no master key, in this caller's environment and depth: what a
    /// plain client would see (a user's own view is built from it).
    public var asAnonymousClient: Caller {
        Caller(isMaster: false, environment: environment, hookDepth: hookDepth)
    }

    /// The server itself acting in this request's environment and depth: master rights, its
    /// hooks run (a signup the server makes runs `_User`'s), no user unless one is given (the
    /// user a login or verification concerns, as LeanEngine's `request.currentUser`).
    public func asServer(for user: JSONValue? = nil) -> Caller {
        Caller(isMaster: true, environment: environment, user: user, hookDepth: hookDepth)
    }

    /// One hook deeper: who a hook's own writes act as (Swift hooks; scripts derive each call's
    /// from it with `forScriptCall`).
    public var nested: Caller {
        var caller = forSwiftCode
        caller.hookDepth += 1
        return caller
    }
}
