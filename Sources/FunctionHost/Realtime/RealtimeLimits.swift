/// The bounds of each realtime (LiveQuery) connection: what one client may send, and how much
/// the server holds for it.
public struct RealtimeLimits: Sendable, Hashable {
    /// The largest frame (or fragmented message) a client may send (16 KiB by default; the SDKs
    /// refuse to send commands over 5 KB). Past it the connection is closed with 1009.
    public var maxMessageSize: Int
    /// The commands a second a connection may keep sending (10 by default), with bursts of up to
    /// `commandBurst` (30); acks don't count (the JS SDK acks every push: they have their own
    /// bound, `ackBurst`). Past it the connection is closed with 4116.
    public var commandsPerSecond: Double
    /// The burst `commandsPerSecond` allows.
    public var commandBurst: Double
    /// The acks a connection may send beyond one per push it was sent (50 by default): the JS SDK
    /// acks every push, nothing else needs to. Past it the connection is closed with 4116.
    public var ackBurst: Int
    /// The WebSocket ping (and pong) frames a second a connection may keep sending (1 by
    /// default), with bursts of up to `pingBurst` (10): the SDKs ping every 180 s. Past it the
    /// connection is closed with 4116.
    public var pingsPerSecond: Double
    /// The burst `pingsPerSecond` allows.
    public var pingBurst: Double
    /// The most events (and replies) queued for one connection that the client hasn't read yet
    /// (1 000 by default), and `maxQueuedBytes` (4 MiB) of the events' JSON: past either the
    /// connection is a slow consumer, closed with 4120, and its queue is dropped.
    public var maxQueuedEvents: Int
    /// The most bytes of queued events (see `maxQueuedEvents`); a single larger event still goes
    /// out when the queue is empty.
    public var maxQueuedBytes: Int
    /// The most bytes of queued events all the realtime connections of one client (an IPv4
    /// address, an IPv6 /64) may hold together (16 MiB by default): without it, a client holding
    /// `ConnectionLimits.perAddress` connections that don't read could make the server hold that
    /// many times `maxQueuedBytes`. The connection whose push would pass it is closed with 4120;
    /// one with nothing queued still gets its event.
    public var maxQueuedBytesPerAddress: Int
    /// The most subscription ids one connection may log in with (4 by default).
    public var maxLoginsPerConnection: Int
    /// The shortest idle time of a realtime connection (240 s by default): the SDKs' keep-alive
    /// comes every 180 s, so the connection limits' idle timeout, when shorter, is raised to this
    /// for WebSocket connections. Past it with nothing received, the connection is closed with
    /// 4107.
    public var minimumIdleTimeout: Duration
    /// How long a connection the server closes may take to take its close frame before the
    /// socket is cut (10 s by default): a slow consumer may not read it at all.
    public var closeGrace: Duration

    /// The limits; every one has a default.
    public init(
        maxMessageSize: Int = 16 * 1024, commandsPerSecond: Double = 10, commandBurst: Double = 30,
        ackBurst: Int = 50, pingsPerSecond: Double = 1, pingBurst: Double = 10,
        maxQueuedEvents: Int = 1000, maxQueuedBytes: Int = 4 * 1024 * 1024,
        maxQueuedBytesPerAddress: Int = 16 * 1024 * 1024, maxLoginsPerConnection: Int = 4,
        minimumIdleTimeout: Duration = .seconds(240), closeGrace: Duration = .seconds(10)
    ) {
        self.maxMessageSize = maxMessageSize
        self.commandsPerSecond = commandsPerSecond
        self.commandBurst = commandBurst
        self.ackBurst = ackBurst
        self.pingsPerSecond = pingsPerSecond
        self.pingBurst = pingBurst
        self.maxQueuedEvents = maxQueuedEvents
        self.maxQueuedBytes = maxQueuedBytes
        self.maxQueuedBytesPerAddress = maxQueuedBytesPerAddress
        self.maxLoginsPerConnection = maxLoginsPerConnection
        self.minimumIdleTimeout = minimumIdleTimeout
        self.closeGrace = closeGrace
    }

    /// The idle time of a WebSocket connection under the connection limits' `idleTimeout`.
    func idleTimeout(_ limits: ConnectionLimits) -> Duration {
        max(limits.idleTimeout, minimumIdleTimeout)
    }
}
