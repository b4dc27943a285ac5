public import DataAPI

/// The write feed's listener that announces every committed write on a change feed: how writes
/// made on this host, by whatever path, reach LiveQuery.
public struct ChangeFeedPublisher: WriteListener {
    /// Where changes are announced.
    public let feed: any ChangeFeed

    /// Which classes' writes are announced now; nil announces all. A feed only this host
    /// follows needs only the classes its subscriptions watch (`LiveQueryHub.watches`); a feed
    /// other hosts follow too needs all.
    public let interest: (@Sendable (String) -> Bool)?

    /// Creates a publisher onto a feed.
    public init(feed: any ChangeFeed, interest: (@Sendable (String) -> Bool)? = nil) {
        self.feed = feed
        self.interest = interest
    }

    /// Whether the class's writes are announced now.
    public func hears(_ className: String) -> Bool {
        interest?(className) ?? true
    }

    /// Announces the write.
    public func didWrite(_ kind: WriteKind, _ event: ObjectEvent) async {
        guard hears(event.className) else { return }
        let change = CommittedChange(
            kind: CommittedChange.Kind(kind), className: event.className, object: event.object,
            original: event.original?.restJSON(), updatedKeys: event.updatedKeys, environment: event.caller.environment)
        await feed.publish(change)
    }

    /// Announces a login, for `_User` subscriptions to the user's own row.
    public func didLogIn(_ event: ObjectEvent) async {
        guard hears("_User") else { return }
        await feed.publish(
            CommittedChange(kind: .login, className: "_User", object: event.object, environment: event.caller.environment))
    }
}

extension CommittedChange.Kind {
    /// The change kind of a committed write.
    init(_ kind: WriteKind) {
        switch kind {
        case .create: self = .create
        case .update: self = .update
        case .delete: self = .delete
        }
    }
}
