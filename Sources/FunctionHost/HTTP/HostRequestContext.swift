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
    /// The session token the request presents (`AuthMiddleware.sessionToken(of:)`), set by the auth
    /// middleware whether or not a user holds it: `users/me` answers 211 for one nobody holds,
    /// and functions with `fetchUser: false` take any.
    public var sessionToken: String?
    /// The environment whose functions the request calls (`X-LC-Prod`), read once by
    /// `RequestFactsReader`; the log and the metrics count the request under it. The hooks its writes run are the caller's `environment`, which differs on
    /// shared data: a client's `X-LC-Prod: 0` calls staging's functions under production's hooks.
    public var functionsEnvironment = EnvironmentName.production
    /// The REST dialect the request speaks (LAS, MaxLeap), decided once by `DialectResponder`;
    /// nil for LeanCloud's. It lets a dialect's sign form through authentication.
    public var dialect: Dialect?
    /// Whether the app id came in the dialect's own header (`X-ML-AppId`, `X-LAS-AppId`): only
    /// then may a session stand in for the key, as MaxLeap's docs send it. LeanCloud's headers
    /// need the key even on a dialect's path or beside a stray dialect header.
    public var appIdInDialect = false
    /// Why the dialects' edge refused the request before it became a LeanCloud request (bad
    /// JSON, an unknown route); `UnmatchedRouteMiddleware` answers it once rate limits and
    /// authentication have passed, so the edge's refusals are limited and authenticated as every answer is.
    var dialectRefusal: HostError?
    /// For a dialect request with a JSON body, the body the edge translated and the answer the
    /// route gives, as values (`DialectHandoff`); nil for LeanCloud's requests.
    var dialectHandoff: DialectHandoff?
    /// The console session a request of the console's API came with (`ConsoleAuthMiddleware`).
    var consoleSession: ConsoleSession?
    /// The largest body accepted; set for the route by `RequestFactsReader`.
    public var bodyLimit: Int = 20 * 1024 * 1024

    /// The peer's IP address, as the connection reports it.
    public var remoteAddress: String?
    /// The client's address: the peer, or what a trusted proxy says (`RequestFactsReader`).
    /// The one place it is kept: rate limits, send limits (signup messages deep inside a create
    /// among them) and functions' `meta.remoteAddress` all read it from here.
    public var clientAddress: String?
    /// The socket address this connection reached the server at.
    private var localAddress: SocketAddress?

    /// The address this connection reached the server at (`http://127.0.0.1:3000`): where file
    /// URLs point when no public URL is configured. The socket's own address, not the
    /// request's `Host`, which the client writes; built only when asked for.
    public var serverAddress: String? {
        LinkBase.serverAddress(of: localAddress)
    }

    /// The socket address this connection reached the server at, for links made later (a
    /// call's search answers).
    var connectionLocalAddress: SocketAddress? { localAddress }

    /// Creates a context for a new request.
    public init(source: Source) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
        clientAddress = remoteAddress
        localAddress = source.channel.localAddress
    }

    /// The largest body Hummingbird's decoders accept.
    public var maxUploadSize: Int { bodyLimit }
}
