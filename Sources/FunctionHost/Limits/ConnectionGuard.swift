import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Guards one client connection's HTTP requests (its count against the client's share, and its
/// first request's deadlines before the HTTP handlers are in place, are `ConnectionGate`'s):
/// closes it when a request's headers, once begun, don't end within
/// `ConnectionLimits.headerTimeout` (every request after the first); and cuts a
/// request whose body arrives slower than `bodyBytesPerWindow` a `bodyWindow` (408 when no
/// response has begun). Hummingbird's idle timeout restarts with every request part, so by
/// itself a body sent a byte at a time held the connection for ever.
///
/// The header deadline starts with the first bytes, not at connect, so a client that opens its
/// connection ahead of its first request is held to the idle timeout. The body's windows count
/// only the time a read is outstanding: while the server is still working through what it has
/// (its reads held back), the client isn't the one that is slow.
///
/// Sits after the HTTP decoder, seeing request parts; one instance per connection, used on its
/// event loop only.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler, ConnectionDeadline {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// Where the connection is in reading a request.
    private enum Phase {
        /// No request part in progress: a new connection, or the last request read whole.
        case between
        /// A request's headers have begun (bytes arrived) and not ended.
        case headers
        /// A request's headers are in, its body has not ended.
        case body
        /// Cut: what is left is to close.
        case closing
    }

    private let limits: ConnectionLimits
    private var phase = Phase.between
    /// Request parts passed on since the last read completed: a read that passed none only
    /// began a request's headers (the decoder holds them until they end).
    private var partsThisRead = 0
    /// Whether a response head has been written since the current request's head arrived
    /// (a route may answer, 413 say, before it has read the body): then a cut only closes.
    private var answered = false
    var timer: Scheduled<Void>?
    /// Body bytes of the current window.
    private var windowBytes = 0
    /// The time of the current window a read was outstanding, up to `readSince`.
    private var waited = TimeAmount.zero
    /// When the outstanding read was asked for; nil when none is.
    private var readSince: NIODeadline?

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    /// The connection is HTTP from here on: the gate hands its deadlines over.
    func handlerAdded(context: ChannelHandlerContext) {
        context.pipeline.syncOperations.fireUserInboundEventTriggered(ConnectionGate.ServingHTTP())
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    func read(context: ChannelHandlerContext) {
        if readSince == nil { readSince = .now() }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let since = readSince {
            waited = waited + (.now() - since)
            readSince = nil
        }
        guard phase != .closing else { return }
        partsThisRead += 1
        switch unwrapInboundIn(data) {
        case .head:
            // The body's window starts once this read is done (`channelReadComplete`), and only
            // if the request hasn't ended in it: a request in one read (most GETs) sets no timer.
            phase = .body
            answered = false
            windowBytes = 0
            waited = .zero
            cancelTimer()
        case .body(let bytes):
            windowBytes += bytes.readableBytes
        case .end:
            phase = .between
            cancelTimer()
        }
        context.fireChannelRead(data)
    }

    /// Bytes were read: when they passed no part on between requests, they began a request's
    /// headers without ending them, and its deadline starts; when they left a request's body
    /// unfinished, its first window starts.
    func channelReadComplete(context: ChannelHandlerContext) {
        if phase == .between, partsThisRead == 0, context.channel.isActive {
            phase = .headers
            schedule(context, in: .init(limits.headerTimeout)) { _, context in context.close(promise: nil) }
        } else if phase == .body, timer == nil {
            schedule(context, in: .init(limits.bodyWindow)) { $0.checkBody($1) }
        }
        partsThisRead = 0
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Once cut, the connection answers nothing more (its 408 may already be on the way).
        guard phase != .closing else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        if case .head = unwrapOutboundIn(data) { answered = true }
        context.write(data, promise: promise)
    }

    /// A body window has passed (of the time spent waiting for the client): it must have
    /// brought its share, or the request is cut.
    private func checkBody(_ context: ChannelHandlerContext) {
        guard phase == .body else { return }
        let now = NIODeadline.now()
        let window = TimeAmount(limits.bodyWindow)
        let elapsed = waited + (readSince.map { now - $0 } ?? .zero)
        guard elapsed >= window else {
            // The server held its reads back for part of the window: the client gets the rest.
            schedule(context, in: window - elapsed) { $0.checkBody($1) }
            return
        }
        guard windowBytes >= limits.bodyBytesPerWindow else {
            cut(context)
            return
        }
        windowBytes = 0
        waited = .zero
        if readSince != nil { readSince = now }
        schedule(context, in: window) { $0.checkBody($1) }
    }

    /// Ends a request too slow to arrive: 408 with code 124 when nothing was answered yet (a
    /// client then knows why), then the connection is closed.
    private func cut(_ context: ChannelHandlerContext) {
        phase = .closing
        cancelTimer()
        guard !answered else {
            context.close(promise: nil)
            return
        }
        let body = context.channel.allocator.buffer(
            string: #"{"code":124,"error":"The request's body arrived too slowly; send it again faster."}"#)
        var fields = HTTPFields()
        fields[.contentType] = "application/json; charset=utf-8"
        fields[.contentLength] = String(body.readableBytes)
        fields[.connection] = "close"
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .requestTimeout, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in context.close(promise: nil) }
    }

    private func stop() {
        cancelTimer()
    }
}
