import NIOCore
import NIOHTTPTypes
import Synchronization

/// The connections open per peer address, shared by every connection of one server.
final class ConnectionCounts: Sendable {
    private let open = Mutex<[String: Int]>([:])
    /// The most one address may hold.
    let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection from `address`; false (nothing counted) past the limit.
    func admit(_ address: String) -> Bool {
        open.withLock { open in
            let count = open[address, default: 0]
            guard count < limit else { return false }
            open[address] = count + 1
            return true
        }
    }

    /// Forgets a connection `admit` counted.
    func release(_ address: String) {
        open.withLock { open in
            let count = open[address, default: 1] - 1
            // An address with none open leaves the table, so it never grows with past peers.
            open[address] = count > 0 ? count : nil
        }
    }

    /// The connections open from `address` (for tests and metrics).
    func count(_ address: String) -> Int { open.withLock { $0[address, default: 0] } }
}

/// Guards one client connection: closes it at once when its peer address already holds as
/// many as `ConnectionLimits.perAddress`, and when its first request's headers, once begun,
/// don't end within `ConnectionLimits.headerTimeout`. (Hummingbird's idle timeout counts from
/// the last complete request part: it closes a connection that sends nothing, and covers the
/// requests after the first.) The deadline starts with the first bytes, not at connect, so a
/// client that opens its connection ahead of its first request is held to the idle timeout.
///
/// Sits after the HTTP decoder, seeing request parts; one instance per connection, used on its
/// event loop only.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let counts: ConnectionCounts
    private let headerTimeout: Duration
    private let proxies: TrustedProxies
    /// The address `counts` holds this connection under; nil when it isn't counted.
    private var counted: String?
    private var started = false
    /// Whether a request's headers have arrived whole.
    private var headSeen = false
    private var headerTimer: Scheduled<Void>?

    init(counts: ConnectionCounts, headerTimeout: Duration, proxies: TrustedProxies) {
        self.counts = counts
        self.headerTimeout = headerTimeout
        self.proxies = proxies
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            headSeen = true
            headerTimer?.cancel()
            headerTimer = nil
        }
        context.fireChannelRead(data)
    }

    /// Bytes were read: when they began the first request's headers without ending them, its
    /// deadline starts (the decoder passes a read on only once the headers are whole).
    func channelReadComplete(context: ChannelHandlerContext) {
        if !headSeen, headerTimer == nil, context.channel.isActive {
            headerTimer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: .init(headerTimeout)) {
                context.close(promise: nil)
            }
        }
        context.fireChannelReadComplete()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        // The TCP peer: a connection holds a descriptor whoever the client behind a proxy is.
        if let peer = context.channel.remoteAddress?.ipAddress, !proxies.contains(peer) {
            guard counts.admit(peer) else {
                context.close(promise: nil)
                return
            }
            counted = peer
        }
    }

    private func stop() {
        headerTimer?.cancel()
        headerTimer = nil
        if let counted { counts.release(counted) }
        counted = nil
    }
}
