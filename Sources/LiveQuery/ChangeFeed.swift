/// How committed writes reach the subscriptions of every host serving the app: in process for
/// one host (SQLite), through the database for several (PostgreSQL).
public protocol ChangeFeed: Sendable {
    /// Announces a write this host committed. Called once per write, after it committed.
    func publish(_ change: CommittedChange) async

    /// Every change announced by any host, each once, in commit order per object. One stream
    /// per caller; it ends when the feed shuts down.
    func changes() -> AsyncStream<CommittedChange>

    /// Records the classes this host's subscriptions watch now (`LiveQueryHub` calls it after
    /// each subscribe and unsubscribe). A feed other hosts share returns once every live host
    /// announces writes of a class newly watched, so a write committed on any host after a
    /// subscribe returns reaches the subscriber.
    func watch(_ classes: Set<String>) async

    /// Whether a write of the class must be announced on the feed for some other host's
    /// subscriptions: a cached answer, called for every write (no statement, no wait). This
    /// host's own subscriptions are asked apart (`LiveQueryHub.watches`).
    func announces(_ className: String) -> Bool
}

extension ChangeFeed {
    /// A feed that doesn't know what hosts watch records nothing.
    public func watch(_ classes: Set<String>) async {}

    /// A feed that doesn't know what other hosts watch announces every write.
    public func announces(_ className: String) -> Bool { true }
}
