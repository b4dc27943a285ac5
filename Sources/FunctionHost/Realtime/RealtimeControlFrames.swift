import NIOCore
import NIOHTTP1
import NIOWebSocket
import Synchronization

/// Holds a connection's ping and pong frames to their own rate, before the WebSocket library
/// sees them: the library answers each ping with a pong inside its inbound stream and never hands
/// control frames to the endpoint, so a flood of pings would cost the server a write each
/// unseen. Past the rate, control frames are dropped and the connection's `ControlFrameAlarm`
/// trips (the endpoint closes with 4116). Sits right after the frame decoder; lives on the
/// channel's event loop.
final class RealtimeControlFrames: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame

    private var rate: RealtimeRate
    private let alarm: ControlFrameAlarm
    private var tripped = false

    init(perSecond: Double, burst: Double, alarm: ControlFrameAlarm) {
        rate = RealtimeRate(rate: perSecond, burst: burst)
        self.alarm = alarm
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard frame.opcode == .ping || frame.opcode == .pong else {
            context.fireChannelRead(data)
            return
        }
        // Once past the rate, no control frame goes on: the close is on its way.
        guard !tripped, rate.take() else {
            if !tripped { alarm.trip() }
            tripped = true
            return
        }
        context.fireChannelRead(data)
    }

    /// Arranges for a limiter to sit after the frame decoder from the moment the upgrade
    /// completes, before the first frame the client sent is decoded. Called from the upgrade's
    /// decision, on the channel's event loop: installed later, from the connection's task, it
    /// would miss every frame read while that task waited to start (a burst of pings sent with
    /// the handshake went through unlimited).
    static func arm(on channel: any Channel, perSecond: Double, burst: Double, alarm: ControlFrameAlarm) {
        try? channel.pipeline.syncOperations.addHandler(Installer(perSecond: perSecond, burst: burst, alarm: alarm))
    }

    /// Waits at the end of the HTTP pipeline for the upgrade's completion: by then the library
    /// has added the frame decoder, and the bytes that came with the handshake are still held
    /// by the upgrade handler, to be let through next.
    private final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = NIOAny

        let perSecond: Double
        let burst: Double
        let alarm: ControlFrameAlarm

        init(perSecond: Double, burst: Double, alarm: ControlFrameAlarm) {
            self.perSecond = perSecond
            self.burst = burst
            self.alarm = alarm
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is HTTPServerUpgradeEvents {
                let pipeline = context.pipeline.syncOperations
                if let decoder = try? pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self) {
                    let limiter = RealtimeControlFrames(perSecond: perSecond, burst: burst, alarm: alarm)
                    try? pipeline.addHandler(limiter, position: .after(decoder))
                }
                pipeline.removeHandler(context: context, promise: nil)
            }
            context.fireUserInboundEventTriggered(event)
        }
    }
}

/// What a connection's control-frame limiter tells the connection: it may trip before the
/// connection's task has started (the limiter is in place from the upgrade on), so the close
/// it asks for waits here until the task says what closing is.
final class ControlFrameAlarm: Sendable {
    private enum State {
        case quiet
        case tripped
        case listening(@Sendable () -> Void)
    }

    private let state = Mutex(State.quiet)

    /// Creates a quiet alarm.
    init() {}

    /// The rate was passed: closes now if the connection listens, else when it starts to.
    func trip() {
        let action: (@Sendable () -> Void)? = state.withLock { state in
            switch state {
            case .quiet:
                state = .tripped
                return nil
            case .tripped: return nil
            case .listening(let action):
                state = .tripped
                return action
            }
        }
        action?()
    }

    /// What to do when the rate is passed; done at once if it already was.
    func listen(_ action: @escaping @Sendable () -> Void) {
        let trippedAlready = state.withLock { state in
            if case .tripped = state { return true }
            state = .listening(action)
            return false
        }
        if trippedAlready { action() }
    }
}
