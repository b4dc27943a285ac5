/// How long client connections may stay open without sending, and how many one address may
/// hold at once. Without them, a few hundred connections that sent nothing (or headers that
/// never ended) held every file descriptor the process had, and nobody else could connect.
public struct ConnectionLimits: Sendable, Hashable {
    /// How long a connection may stay open with no request in progress (60 s by default).
    public var idleTimeout: Duration
    /// How long a connection may take to end its first request's headers once it has begun
    /// sending them (10 s by default). Later requests on the connection are held to
    /// `idleTimeout`.
    public var headerTimeout: Duration
    /// The most connections one peer address may hold open (64 by default). A trusted proxy
    /// (`HostConfiguration.trustedProxies`) carries many clients' connections and is not
    /// counted; the clients behind it are its to limit.
    public var perAddress: Int

    /// The limits; every one has a default.
    public init(idleTimeout: Duration = .seconds(60), headerTimeout: Duration = .seconds(10), perAddress: Int = 64) {
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.perAddress = perAddress
    }
}
