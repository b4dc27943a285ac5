/// The bounds of the subscriptions one host keeps in memory. Every subscription is matched
/// against every committed write of its class, so each dimension is bounded: how many, how
/// large, and how long one lives with no connection to deliver to.
public struct LiveQueryLimits: Sendable, Hashable {
    /// Subscriptions (queries) one subscription id may hold; one more is refused (code 1).
    public var subscriptionsPerID = 64
    /// Subscriptions the host holds in all, and subscription ids it knows; past it a new one
    /// is refused (code 511, 503).
    public var subscriptions = 100_000
    /// Subscriptions one client address holds across all its subscription ids (an IPv6 client
    /// is its /64); one more is refused (429). Without it, one client could take all of
    /// `subscriptions` by changing id every `subscriptionsPerID`. A thousand is fifteen devices
    /// at `subscriptionsPerID` each behind one NAT, or hundreds subscribing a few queries.
    public var subscriptionsPerAddress = 1_000
    /// Subscriptions acting as one signed-in user, across ids and addresses; one more is
    /// refused (429). The master key's are bound by neither this nor the address's.
    public var subscriptionsPerUser = 1_000
    /// Subscriptions made with the app key and no user, across all addresses; one more is
    /// refused (code 511, 503). Half the host's by default, so that a hundred addresses at
    /// `subscriptionsPerAddress` can't leave signed-in users no room.
    public var subscriptionsWithoutUser = 50_000
    /// Connections logged in with one subscription id at once (a device reconnecting while its
    /// old socket is still closing takes two); past it the login is refused.
    public var connectionsPerID = 4
    /// How long a subscription id's subscriptions outlive its last connection. The SDKs log in
    /// again and re-subscribe after every reconnect, so past it nothing is lost but memory.
    public var idleLifetime: Duration = .seconds(3600)
    /// How long the subscriptions of an id no realtime connection has ever logged in with live.
    /// Every SDK logs in before it subscribes (and again before it re-subscribes after a
    /// reconnect), so an unclaimed id is a client that subscribes over REST and never listens:
    /// its subscriptions take room in the host's cap for this long, not `idleLifetime`.
    public var unclaimedLifetime: Duration = .seconds(600)
    /// The most conditions and values a subscription's `where` holds (a find allows
    /// `QueryPredicate.maxSize`; a subscription is evaluated on every write of its class).
    public var maxQueryWeight = 500
    /// The most bytes of a subscription's `query` as JSON.
    public var maxQueryBytes = 16 * 1024
    /// The most committed changes waiting for delivery on this host. Past it a change is not
    /// queued: the connections of its class's subscriptions are closed (they would miss it) and
    /// the SDKs reconnect and subscribe again.
    public var changeBacklog = 10_000
    /// The longest subscription id, in bytes.
    public var maxIDLength = 128

    /// The default limits.
    public init() {}
}
