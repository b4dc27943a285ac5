/// The one place hooks run. Every hooked operation of every path — REST, batch, users,
/// verification, files, cloud code's data APIs — reaches its hooks through these three
/// methods, so the questions "is there a hook?", "does this caller skip it?" and "who hears
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
        _ operation: HookedWrite, _ event: ObjectEvent,
        write: (_ event: ObjectEvent, _ hooked: Bool) async throws -> (value: Value, after: ObjectEvent)
    ) async throws -> Hooked<Value> {
        let before = try await runBefore(operation.before, event)
        let (value, after) = try await write(before ?? event, before != nil)
        await runAfter(operation.after, after)
        if !Names.internalClasses.contains(after.className) {
            for listener in listeners { await listener.didWrite(operation.kind, after) }
        }
        return Hooked(value: value, ranBeforeHook: before != nil)
    }

    /// Whether an operation of this kind would run a hook for the caller: one is registered
    /// in its environment and the caller doesn't skip it.
    package func willRun(_ kind: HookKind, _ className: String, caller: Caller) -> Bool {
        guard let hooks, !caller.skippedHooks.contains(kind) else { return false }
        return hooks.hasHook(kind, for: className, in: caller.environment)
    }

    /// Runs a before-hook (or one that works like it: `onLogin`, `onAuthData`, `afterFind`):
    /// the event as the hook left it, nil when no hook runs.
    package func runBefore(_ kind: HookKind, _ event: ObjectEvent) async throws -> ObjectEvent? {
        guard willRun(kind, event.className, caller: event.caller), let hooks else { return nil }
        return try await hooks.runBefore(kind, event)
    }

    /// Runs an after-hook (or `onVerified`) once the operation committed; it never fails it.
    package func runAfter(_ kind: HookKind, _ event: ObjectEvent) async {
        guard willRun(kind, event.className, caller: event.caller), let hooks else { return }
        await hooks.runAfter(kind, event)
    }
}
