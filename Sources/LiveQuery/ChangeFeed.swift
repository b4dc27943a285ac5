/// How committed writes reach the subscriptions of every host serving the app: in process for
/// one host (SQLite), through the database for several (PostgreSQL).
public protocol ChangeFeed: Sendable {
    /// Announces a write this host committed. Called once per write, after it committed.
    func publish(_ change: CommittedChange) async

    /// Every change announced by any host, each once, in commit order per object. One stream
    /// per caller; it ends when the feed shuts down.
    func changes() -> AsyncStream<CommittedChange>
}
