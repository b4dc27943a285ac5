/// The hooks one operation runs: its environment's hook set, read once when the operation
/// starts, and the kinds its caller skips. Every "is there a beforeSave hook?" of the operation
/// (whether to read the original, whether to build the hook's object, whether to run it) asks
/// this value, without a lock; the environments' lock is taken once, by `DataService.operationHooks(for:)`.
package struct OperationHooks: Sendable {
    /// The environment's hooks; nil when the service runs none.
    let snapshot: (any HookSnapshot)?
    /// The kinds the caller skips (`__ignore_hooks`, a hook's own writes).
    let skipped: Set<HookKind>

    /// No hooks at all.
    static let none = OperationHooks(snapshot: nil, skipped: [])

    /// Whether the operation runs a hook of this kind for the class.
    package func willRun(_ kind: HookKind, _ className: String) -> Bool {
        guard let snapshot, !skipped.contains(kind) else { return false }
        return snapshot.contains(kind, className)
    }

    /// Runs a before-hook (or one that works like it: `onLogin`, `onAuthData`, `afterFind`):
    /// the event as the hook left it, nil when no hook runs.
    package func runBefore(_ kind: HookKind, _ event: ObjectEvent) async throws -> ObjectEvent? {
        guard let snapshot, willRun(kind, event.className) else { return nil }
        return try await snapshot.runBefore(kind, event)
    }

    /// Runs an after-hook (or `onVerified`) once the operation committed; it never fails it.
    package func runAfter(_ kind: HookKind, _ event: ObjectEvent) async {
        guard let snapshot, willRun(kind, event.className) else { return }
        await snapshot.runAfter(kind, event)
    }

    /// Runs an after-hook for a caller that answers its failure.
    package func runAfterAnswering(_ kind: HookKind, _ event: ObjectEvent) async throws {
        guard let snapshot, willRun(kind, event.className) else { return }
        try await snapshot.runAfterAnswering(kind, event)
    }
}
