import JSON

/// The one place hooks run. Every hooked operation of every path — REST, batch, users,
/// verification, files, cloud code's data APIs, and every query (`aroundFindHooks`) — reaches
/// its hooks through these methods, so the questions "is there a hook?", "does this caller skip it?" and "who hears
/// the write?" are answered once, here, in the way GRDB's records run `willSave`, `aroundSave`
/// and `didSave` around one object.
extension DataService {
    /// The hooks around one kind of write, and what listeners hear of it.
    struct HookedWrite: Sendable {
        var before: HookKind
        var after: HookKind
        var kind: WriteKind

        static let create = HookedWrite(before: .beforeSave, after: .afterSave, kind: .create)
        static let update = HookedWrite(before: .beforeUpdate, after: .afterUpdate, kind: .update)
        static let delete = HookedWrite(before: .beforeDelete, after: .afterDelete, kind: .delete)
    }

    /// What a hooked write produced, and whether a before-hook ran (and so may have changed
    /// what was written: the answer then reports it).
    struct Hooked<Value: Sendable>: Sendable {
        var value: Value
        var ranBeforeHook: Bool
    }

    /// Runs a write inside its hooks: the before-hook (which may change the event or refuse),
    /// `write` with the event as the hook left it (and whether a hook ran: a hook's object
    /// carries server keys the client's body may not), then the after-hook and every listener
    /// with the event `write` hands back (the stored object).
    func aroundHooks<Value: Sendable>(
        _ operation: HookedWrite, _ event: ObjectEvent, hooks: OperationHooks,
        write: (_ event: ObjectEvent, _ hooked: Bool) async throws -> (value: Value, after: ObjectEvent)
    ) async throws -> Hooked<Value> {
        let before = try await hooks.runBefore(operation.before, event)
        let (value, after) = try await write(before ?? event, before != nil)
        await didWrite(operation, after, hooks: hooks)
        return Hooked(value: value, ranBeforeHook: before != nil)
    }

    /// What follows a committed write: its after-hook, then every listener.
    func didWrite(_ operation: HookedWrite, _ event: ObjectEvent, hooks: OperationHooks) async {
        await hooks.runAfter(operation.after, event)
        if !Names.internalClasses.contains(event.className) {
            for listener in listeners { await listener.didWrite(operation.kind, event) }
        }
    }

    /// What a query read shows its find hooks: the REST parameters as the caller sent them, or
    /// a query that arrived in another form (CQL, a count), shown in its REST form.
    enum FindRequest: Sendable {
        case parameters([String: JSONValue])
        case query(ObjectQuery)
    }

    /// Runs a query read inside its find hooks. Every query path (REST find and count, `/batch`
    /// GETs, CQL, cloud code's finds and counts in JavaScript and Swift) comes here, so a hook
    /// that narrows what a class shows holds whichever way the class is queried.
    ///
    /// `beforeFind` gets the query as REST parameters (`where`, `order`, `limit`, ..., and
    /// `count: 1` for a count) and may change them; `afterFind` gets the rows read and may change
    /// them. As in Parse Server, where these hooks come from (LeanEngine has none), a count runs
    /// `beforeFind` (its condition decides what is counted) but no `afterFind` when it reads no
    /// rows, and a count stays one: a hook may narrow it, never turn it into a listing.
    func aroundFindHooks(
        _ className: String, _ request: FindRequest, counting: Bool, caller: Caller, hooks: OperationHooks? = nil,
        read: (ObjectQuery) async throws -> (objects: [StoredObject], count: Int?)
    ) async throws -> (query: ObjectQuery, objects: [StoredObject], count: Int?) {
        let hooks = hooks ?? operationHooks(for: caller)
        var event = ObjectEvent(className: className, object: [:], caller: caller)
        var query: ObjectQuery
        switch request {
        case .parameters(let parameters):
            event.object = parameters
            query = try ObjectQuery(className: className, query: parameters)
        case .query(let asked):
            query = asked
            let hooked = hooks.willRun(.beforeFind, className) || hooks.willRun(.afterFind, className)
            if hooked {
                event.object = try asked.parameters()
                if counting { event.object["count"] = 1 }
            }
        }
        if let changed = try await hooks.runBefore(.beforeFind, event) {
            let countOnly = query.limit == 0
            event = changed
            query = try ObjectQuery(className: className, query: event.object)
            if countOnly { query.limit = 0 }
        }
        let result = try await read(query)
        var objects = result.objects
        if query.limit > 0 {
            event.results = objects
            if let found = try await hooks.runBefore(.afterFind, event) { objects = found.results }
        }
        return (query, objects, result.count)
    }

    /// The hooks an operation of `caller` runs: its environment's hook set, read once (one
    /// lock) at the operation's start; the operation asks only this afterwards.
    package func operationHooks(for caller: Caller) -> OperationHooks {
        guard let hooks else { return .none }
        return OperationHooks(snapshot: hooks.snapshot(in: caller.environment), skipped: caller.skippedHooks)
    }

    /// Whether an operation of this kind would run a hook for the caller: one is registered
    /// in its environment and the caller doesn't skip it. A one-question operation's shortcut:
    /// one that asks more takes `operationHooks(for:)` once.
    package func willRun(_ kind: HookKind, _ className: String, caller: Caller) -> Bool {
        operationHooks(for: caller).willRun(kind, className)
    }

    /// Runs a before-hook (or one that works like it: `onLogin`, `onAuthData`, `afterFind`):
    /// the event as the hook left it, nil when no hook runs.
    package func runBefore(_ kind: HookKind, _ event: ObjectEvent) async throws -> ObjectEvent? {
        try await operationHooks(for: event.caller).runBefore(kind, event)
    }

    /// Runs an after-hook (or `onVerified`) once the operation committed; it never fails it.
    package func runAfter(_ kind: HookKind, _ event: ObjectEvent) async {
        await operationHooks(for: event.caller).runAfter(kind, event)
    }

    /// Runs an after-hook for a caller that answers its failure (LeanEngine's platform hook
    /// endpoint, where the storage service that called decides what a failure means).
    package func runAfterAnswering(_ kind: HookKind, _ event: ObjectEvent) async throws {
        try await operationHooks(for: event.caller).runAfterAnswering(kind, event)
    }
}
