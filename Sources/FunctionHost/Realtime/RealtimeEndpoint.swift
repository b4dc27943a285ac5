import Foundation
import HTTPTypes
import HummingbirdWebSocket
import LiveQuery
import Logging
import NIOCore
import NIOWebSocket
import RealtimeProtocol

/// The realtime (LiveQuery) WebSocket endpoint, `GET /realtime` upgraded on the server's own
/// port, in one of LeanCloud's sub-protocols. A connection logs in with its subscription id and
/// is attached to the subscriptions (`LiveQueryConnections`), which push events to it.
struct RealtimeEndpoint: Sendable {
    /// Where the endpoint is (`/v1/route` hands out its URL).
    static let path = "/realtime"

    /// The app this server serves: a login for another is refused (4100).
    let appID: String
    /// The subscriptions' side.
    let connections: any LiveQueryConnections
    let limits: RealtimeLimits
    /// The connection limits' idle time raised to the SDKs' keep-alive.
    let idleTimeout: Duration
    let metrics: HostMetrics
    /// The bytes each client's connections may hold queued together.
    let budget: RealtimeQueueBudget
    /// The proxies whose `X-Forwarded-For` names the client: the budget a connection takes
    /// from, and the subscriptions a login receives (those its client address made,
    /// `LiveQuerySink.client`).
    let proxies: TrustedProxies
    /// The origins browser pages may connect from.
    let origins: WebOrigins

    /// The upgrade's decision: `/realtime` with a sub-protocol of LeanCloud's, named in the
    /// answer as the handshake requires. Anything else is not upgraded (400). A browser page of
    /// an origin not allowed is upgraded and closed at once with 4110, LeanCloud's "invalid
    /// origin", on which the JS SDK gives up (an upgrade refused would be retried for ever).
    func shouldUpgrade(
        _ request: HTTPRequest, channel: any Channel
    ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let path = request.path.map { $0.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0] }
        guard request.method == .get, path == Self.path[...], let (name, dialect) = Self.subProtocol(request) else {
            metrics.recordRealtimeClose("refused_upgrade")
            return .dontUpgrade
        }
        if let origin = request.headerFields[.origin], !origins.allows(origin) {
            return .upgrade([.secWebSocketProtocol: name]) { [metrics] _, outbound, _ in
                metrics.recordRealtimeClose(RealtimeClose.invalidOrigin.label)
                let close = RealtimeClose.invalidOrigin
                try? await outbound.close(WebSocketErrorCode(codeNumber: Int(close.code)), reason: close.reason)
            }
        }
        let client = ClientAddress.resolve(peer: channel.remoteAddress?.ipAddress, headers: request.headerFields, trusting: proxies)
        let share = budget.share(forClient: client)
        let alarm = ControlFrameAlarm()
        RealtimeControlFrames.arm(on: channel, perSecond: limits.pingsPerSecond, burst: limits.pingBurst, alarm: alarm)
        return .upgrade([.secWebSocketProtocol: name]) { inbound, outbound, _ in
            await serve(
                dialect: dialect, client: client, share: share, alarm: alarm, inbound: inbound, outbound: outbound, channel: channel)
        }
    }

    /// The first sub-protocol the client offered that is served, as it named it.
    static func subProtocol(_ request: HTTPRequest) -> (String, SubProtocol)? {
        let offered = request.headerFields[values: .secWebSocketProtocol].flatMap { $0.split(separator: ",") }
        for name in offered.prefix(16) {
            if let dialect = SubProtocol(offered: name) {
                return (name.trimmingCharacters(in: .whitespaces), dialect)
            }
        }
        return nil
    }

    /// One connection: its reader answers commands in order while its writer writes replies
    /// and pushes from the outbox; it ends when either side closes.
    private func serve(
        dialect: SubProtocol, client: String?, share: RealtimeQueueBudget.Share?, alarm: ControlFrameAlarm, inbound: WebSocketInboundStream,
        outbound: WebSocketOutboundWriter, channel: any Channel
    ) async {
        metrics.recordRealtimeOpened()
        defer { metrics.recordRealtimeEnded() }
        let grace = limits.closeGrace
        let outbox = RealtimeOutbox(limits: limits, share: share) { [metrics] close in
            metrics.recordRealtimeClose(close.label)
            // A client that doesn't read gets its close frame late or never: the socket is cut.
            channel.eventLoop.scheduleTask(in: .init(grace)) { channel.close(promise: nil) }
        }
        alarm.listen { outbox.close(.tooFast) }
        channel.pipeline.fireUserInboundEventTriggered(ConnectionGate.Upgraded(idleTimeout: idleTimeout) { outbox.close(.idle) })
        let codec = RealtimeCodec(dialect: dialect)
        var session = RealtimeSession(
            appID: appID, connections: connections, outbox: outbox, limits: limits, metrics: metrics, client: client)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await Self.write(outbox, codec: codec, to: outbound, appID: appID, metrics: metrics) }
            do {
                for try await message in inbound.messages(maxSize: limits.maxMessageSize) {
                    let frame: RealtimeInbound
                    do throws(MalformedFrame) {
                        frame = try codec.decode(message)
                    } catch {
                        outbox.close(.malformed(error.reason))
                        break
                    }
                    // Once the server decided to close (here or by a push), nothing more is read.
                    guard await session.handle(frame), outbox.closing == nil else { break }
                }
                if outbox.closing == nil { metrics.recordRealtimeClose("client") }
            } catch {
                // Too large a message, or a protocol error: the library closes with its code
                // (1009, 1002).
                if outbox.closing == nil { metrics.recordRealtimeClose("protocol") }
            }
            await session.end()
            outbox.finish()
            await group.waitForAll()
        }
        outbox.release()
    }

    /// Writes the outbox until its close (written last) or its end.
    private static func write(
        _ outbox: RealtimeOutbox, codec: RealtimeCodec, to outbound: WebSocketOutboundWriter, appID: String, metrics: HostMetrics
    ) async {
        for await item in outbox.items {
            do {
                switch item {
                case .command(let command):
                    outbox.delivered(events: 1, bytes: 0)
                    try await outbound.write(codec.encode(command))
                case .heartbeat:
                    outbox.delivered(events: 1, bytes: 0)
                    try await outbound.write(RealtimeCodec.heartbeat)
                case .events(let installationID, let events, let bytes):
                    outbox.delivered(events: events.count, bytes: bytes)
                    // Once closing, queued pushes are skipped: the close goes out next.
                    guard outbox.closing == nil else { continue }
                    // Counted before it goes out: the client may ack it as soon as it has it.
                    outbox.wrotePush()
                    try await outbound.write(codec.encode(dataCommand(events, installationID: installationID, appID: appID)))
                    metrics.recordRealtimeCommand(direction: "out", command: "data")
                case .close(let close):
                    try await outbound.close(WebSocketErrorCode(codeNumber: Int(close.code)), reason: close.reason)
                    return
                }
            } catch {
                return
            }
        }
    }

    /// The push of LeanCloud's realtime servers: service 1, the subscription id, the app id, no
    /// `i` (the clients would take it for a reply), each event's JSON as one `msg`.
    static func dataCommand(_ events: [LiveEvent], installationID: String, appID: String) -> GenericCommand {
        var command = GenericCommand()
        command.cmd = .data
        command.service = RealtimeSession.liveQueryService
        command.appID = appID
        command.installationID = installationID
        var data = DataCommand()
        data.msg = events.map { event in
            var message = JsonObjectMessage()
            message.data = event.json
            return message
        }
        command.dataMessage = data
        return command
    }
}
