import Synchronization

/// How many times the roles of a data service's storage changed (a `_Role` written, deleted or
/// imported): what a remembered walk of a caller's roles is checked against. Shared by the
/// copies of one service.
final class RoleChanges: Sendable {
    private let count = Atomic(0)

    /// The number of role changes so far.
    var generation: Int { count.load(ordering: .acquiring) }

    /// Records a committed change to roles: every walk remembered before it is walked again.
    func bump() {
        count.add(1, ordering: .releasing)
    }
}

/// A caller's identities (`*`, its user, its roles) as one walk of the roles found them,
/// remembered in the caller so the checks of one request walk the roles once however many
/// operations it makes (a create, then the view of its answer; every item of a batch).
///
/// Kept with what it was worked out for (the service's role changes and their generation, the
/// user, the environment): a caller copied for another user or another service, or a role
/// written since, walks again. It takes no part in a caller's equality or hash.
package final class RoleMemo: Sendable, Hashable {
    private struct Entry {
        let roles: RoleChanges
        let generation: Int
        let userId: String
        let environment: EnvironmentName
        let identities: [Identity]
    }

    private let entry = Mutex<Entry?>(nil)

    /// An empty memo.
    package init() {}

    /// The identities remembered for this user, environment and service, if still current.
    func identities(userId: String, environment: EnvironmentName, roles: RoleChanges, generation: Int) -> [Identity]? {
        entry.withLock { entry in
            guard let entry, entry.roles === roles, entry.generation == generation, entry.userId == userId,
                entry.environment == environment
            else { return nil }
            return entry.identities
        }
    }

    /// Remembers a walk made at `generation` (read before the walk began, so a role change
    /// committed during it makes the next check walk again).
    func remember(
        _ identities: [Identity], userId: String, environment: EnvironmentName, roles: RoleChanges, generation: Int
    ) {
        entry.withLock {
            $0 = Entry(roles: roles, generation: generation, userId: userId, environment: environment, identities: identities)
        }
    }

    /// Every memo is equal: what a caller remembered doesn't make it another caller.
    package static func == (lhs: RoleMemo, rhs: RoleMemo) -> Bool { true }

    /// Hashes nothing, as equality compares nothing.
    package func hash(into hasher: inout Hasher) {}
}
