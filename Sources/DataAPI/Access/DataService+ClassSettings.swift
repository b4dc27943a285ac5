public import JSON

extension DataService {
    /// The settings in force for a class: those stored for it, else the defaults (which
    /// `openUserQueries` opens `_User` find in). Settings are the app's configuration, kept in
    /// production's database for both environments, as deploys and variables are.
    public func classSettings(of className: String) async throws -> ClassSettings {
        try await settingsStore.settings(
            className, defaults: ClassSettings.defaults(for: className, openUserQueries: openUserQueries), in: engines.production)
    }

    /// Lays `changes` (LeanCloud's `{"permissions": {...}, "schema": {...}}`, as an export's
    /// `<Class>_all.json` holds it) over a class's settings and stores them (master key only).
    /// Returns the settings now in force.
    public func updateClassSettings(_ className: String, with changes: JSONValue, caller: Caller) async throws -> ClassSettings {
        try checkClassName(className)
        guard caller.isMaster else { throw DataAPIError(.operationForbidden, "Changing class settings needs the master key.") }
        guard !Names.internalClasses.contains(className) else {
            throw DataAPIError(.operationForbidden, "\(className) is the host's own class: its settings can't be changed.")
        }
        return try await settingsStore.update(
            className, with: changes, defaults: ClassSettings.defaults(for: className, openUserQueries: openUserQueries),
            in: engines.production)
    }

    /// The authorization step for one caller: its identities worked out once.
    func access(for caller: Caller) async throws -> Access {
        Access(caller: caller, identities: try await identities(of: caller), service: self)
    }
}
