/// How long client connections may stay open without sending, how fast a request must arrive,
/// and how many connections one client may hold at once. Without them, a few hundred
/// connections that sent nothing (or headers that never ended, or a body a byte a minute) held
/// every file descriptor the process had, and nobody else could connect.
public struct ConnectionLimits: Sendable, Hashable {
    /// How long a connection may stay open with no request in progress (60 s by default).
    public var idleTimeout: Duration
    /// How long each request on a connection may take to end its headers once it has begun
    /// sending them (10 s by default).
    public var headerTimeout: Duration
    /// The body rate's window (10 s by default): once a request's headers are in, each window
    /// of time the server spends waiting for its body must bring `bodyBytesPerWindow` bytes or
    /// the body's end. A body smaller than that must so arrive whole within one window; a large
    /// upload on a slow link goes on as long as it keeps the pace, however long it takes in all
    /// (the body size limits bound that). Time the server isn't reading (it's busy with what it
    /// has) doesn't count against the client.
    public var bodyWindow: Duration
    /// The fewest body bytes each `bodyWindow` must bring (64 KiB by default: 6.5 KB/s, below
    /// any link a client would upload on). Past it the connection is answered 408 (code 124) if
    /// no response has begun, and closed.
    public var bodyBytesPerWindow: Int
    /// The most connections one client may hold open (64 by default): an IPv4 address, or an
    /// IPv6 /64 network. A trusted proxy (`HostConfiguration.trustedProxies`) carries many
    /// clients' connections and is not counted; the clients behind it are its to limit.
    public var perAddress: Int

    /// The limits; every one has a default.
    public init(
        idleTimeout: Duration = .seconds(60), headerTimeout: Duration = .seconds(10), bodyWindow: Duration = .seconds(10),
        bodyBytesPerWindow: Int = 64 * 1024, perAddress: Int = 64
    ) {
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.bodyWindow = bodyWindow
        self.bodyBytesPerWindow = bodyBytesPerWindow
        self.perAddress = perAddress
    }
}
