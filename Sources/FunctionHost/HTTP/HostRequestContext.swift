public import DataAPI
public import Hummingbird
import NIOCore

/// The per-request state: who is calling, established by `AuthMiddleware`.
public struct HostRequestContext: RequestContext {
    /// Hummingbird's own per-request storage.
    public var coreContext: CoreRequestContextStorage
    /// The authenticated caller, set by the auth middleware (a plain client until then: the
    /// open paths, ping and date, need no more).
    public var caller = Caller(isMaster: false)
    /// The largest body accepted; set from the configuration by the auth middleware.
    public var bodyLimit: Int = 20 * 1024 * 1024

    /// The peer's IP address, as the connection reports it.
    public var remoteAddress: String?

    /// Creates a context for a new request.
    public init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    /// The largest body Hummingbird's decoders accept.
    public var maxUploadSize: Int { bodyLimit }
}
