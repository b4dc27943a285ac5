import Foundation

/// One login to the console: the master key's stand-in while it lives. The id travels only in
/// the session cookie; the database keeps its hash (`ConsoleSessions`).
struct ConsoleSession: Sendable, Equatable {
    /// The record's id: the SHA-256 of the session id, in hex.
    let key: String
    /// The token the page sends in `X-Console-CSRF` with every change.
    let csrfToken: String
    /// When the session was made (seconds since 1970): it ends `lifetime` after.
    let created: TimeInterval
    /// When it was last used (seconds since 1970): it ends `idleLifetime` after.
    var lastSeen: TimeInterval

    /// When it ends, unless used before the idle limit: the earlier of the two limits.
    func expiry(_ options: ConsoleOptions) -> TimeInterval {
        min(created + options.lifetime, lastSeen + options.idleLifetime)
    }
}
