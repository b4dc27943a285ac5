import NIOCore

/// The first handler of every client connection, on its bytes, for the connection's whole life:
/// it counts the connection against its client's share (`ConnectionLimits.perAddress`, closing
/// it at once past it), holds the first request to the idle and header deadlines until the
/// connection is known to be HTTP (`ConnectionGuard` and Hummingbird's idle timer take over) or
/// a WebSocket (then it closes the socket after the realtime idle time with nothing received).
///
/// It sits before the HTTP decoder because the WebSocket upgrade's pipeline adds the HTTP
/// handlers (`ConnectionGuard` among them) only once the first request's head is in: until then,
/// a connection that sent nothing, or headers that never ended, had no deadline at all, and a
/// WebSocket connection was counted against no share. One instance per connection, used on its
/// event loop only.
final class ConnectionGate: ChannelInboundHandler, RemovableChannelHandler, ConnectionDeadline {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// Fired through the pipeline when the connection's HTTP handlers are in place.
    struct ServingHTTP {}

    /// Fired through the pipeline when the connection became a WebSocket: with nothing received
    /// for `idleTimeout`, `onIdle` is called (it closes the socket with a close frame).
    struct Upgraded: Sendable {
        var idleTimeout: Duration
        var onIdle: @Sendable () -> Void
    }

    private enum Phase {
        case firstRequest
        case http
        case webSocket(idle: TimeAmount, onIdle: @Sendable () -> Void)
    }

    private let counts: ConnectionCounts
    private let limits: ConnectionLimits
    private let proxies: TrustedProxies
    private var counted: String?
    private var started = false
    private var phase = Phase.firstRequest
    private var receivedBytes = false
    private var lastRead = NIODeadline.now()
    var timer: Scheduled<Void>?

    init(counts: ConnectionCounts, limits: ConnectionLimits, proxies: TrustedProxies) {
        self.counts = counts
        self.limits = limits
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
        lastRead = .now()
        if case .firstRequest = phase, !receivedBytes {
            // The first request has begun: its headers have the header deadline to end.
            receivedBytes = true
            schedule(context, in: .init(limits.headerTimeout)) { $0.cut($1) }
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case is ServingHTTP:
            phase = .http
            cancelTimer()
        case let upgraded as Upgraded:
            let idle = TimeAmount(upgraded.idleTimeout)
            phase = .webSocket(idle: idle, onIdle: upgraded.onIdle)
            lastRead = .now()
            schedule(context, in: idle) { $0.checkIdle($1) }
        default:
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// The WebSocket's idle time has passed since the timer was set: closed if nothing came
    /// since, else checked again when the idle time from the last read is up.
    private func checkIdle(_ context: ChannelHandlerContext) {
        guard case .webSocket(let idle, let onIdle) = phase else { return }
        let due = lastRead + idle
        let now = NIODeadline.now()
        if due > now {
            schedule(context, in: due - now) { $0.checkIdle($1) }
        } else {
            onIdle()
        }
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        // The TCP peer: a connection holds a descriptor whoever the client behind a proxy is.
        if let peer = context.channel.remoteAddress?.ipAddress, !proxies.contains(peer) {
            guard counts.admit(peer) else {
                // After the pipeline is set up (this runs inside its setup): closed before then,
                // the upgrade's negotiation fails as an error in the log, once per refusal.
                context.eventLoop.assumeIsolatedUnsafeUnchecked().execute { [self] in cut(context) }
                return
            }
            counted = peer
        }
        // Silent from the start: closed at the idle timeout.
        schedule(context, in: .init(limits.idleTimeout)) { $0.cut($1) }
    }

    /// Closes a connection whose first request hasn't come (or is over its share) as a client
    /// leaving would: its input ends first, which the upgrade's negotiation takes quietly, where
    /// a bare close is logged as an error.
    private func cut(_ context: ChannelHandlerContext) {
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        context.close(promise: nil)
    }

    private func stop() {
        cancelTimer()
        if let counted { counts.release(counted) }
        counted = nil
    }
}
