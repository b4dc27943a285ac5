import NIOCore
import NIOWebSocket

/// Holds a connection's ping and pong frames to their own rate, before the WebSocket library
/// sees them: the library answers each ping with a pong inside its inbound stream and never hands
/// control frames to the endpoint, so a flood of pings would cost the server a write each
/// unseen. Past the rate, control frames are dropped and `exceeded` is called once (the endpoint
/// closes with 4116). Sits right after the frame decoder; lives on the channel's event loop.
final class RealtimeControlFrames: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private var rate: RealtimeRate
    private var exceeded: (@Sendable () -> Void)?

    init(perSecond: Double, burst: Double, exceeded: @escaping @Sendable () -> Void) {
        rate = RealtimeRate(rate: perSecond, burst: burst)
        self.exceeded = exceeded
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard frame.opcode == .ping || frame.opcode == .pong else {
            context.fireChannelRead(data)
            return
        }
        // Once past the rate, no control frame goes on: the close is on its way.
        guard exceeded != nil, rate.take() else {
            exceeded?()
            exceeded = nil
            return
        }
        context.fireChannelRead(data)
    }

    /// Puts a limiter after the channel's WebSocket frame decoder (on its event loop). A channel
    /// without one (it closed meanwhile) is left as it is.
    static func install(on channel: any Channel, perSecond: Double, burst: Double, exceeded: @escaping @Sendable () -> Void) {
        channel.eventLoop.execute {
            let pipeline = channel.pipeline.syncOperations
            guard let decoder = try? pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self) else { return }
            try? pipeline.addHandler(
                RealtimeControlFrames(perSecond: perSecond, burst: burst, exceeded: exceeded), position: .after(decoder))
        }
    }
}
