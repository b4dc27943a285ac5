/// Where the events of one subscription id go: one realtime connection that logged in with that
/// id. The socket layer implements it; the subscriptions know nothing of frames or dialects.
public protocol LiveQuerySink: AnyObject, Sendable {
    /// Queues events for delivery without waiting for the socket. Returns false when the
    /// connection's queue is full: a slow consumer, which the sink closes itself (with the close
    /// code the README lists) rather than holding memory for it.
    func push(_ events: [LiveEvent]) -> Bool

    /// The host lost events meant for this connection (its queue of committed changes
    /// overflowed, `LiveQueryLimits.changeBacklog`): the sink closes with the close code the
    /// README lists, so the client reconnects and subscribes again; it gets nothing more.
    func eventsLost()

    /// The client address the connection came from (what a trusted proxy names, else the peer).
    /// A subscription's events go only to connections from the address that made it: knowing
    /// someone's subscription id is not enough to receive its events. Nil for an in-process
    /// sink, which receives the subscriptions made with no address.
    var client: String? { get }
}

extension LiveQuerySink {
    /// No address: an in-process sink.
    public var client: String? { nil }
}

/// The subscriptions' side of a realtime connection: a connection that logged in with a
/// subscription id is attached to it, and detached when it closes or logs out.
public protocol LiveQueryConnections: Sendable {
    /// Attaches a logged-in connection to its subscription id. Returns false when the id may not
    /// take another connection (the bound on connections per id): the login is then refused.
    func attach(_ sink: any LiveQuerySink, subscriptionID: String) async -> Bool

    /// Detaches a connection (closed or logged out); its subscriptions stay, for a reconnect.
    func detach(_ sink: any LiveQuerySink, subscriptionID: String) async
}
