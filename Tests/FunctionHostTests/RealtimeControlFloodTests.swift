import Foundation
import HummingbirdWSClient
import LiveQuery
import NIOCore
import NIOWebSocket
import RealtimeProtocol
import TestSupport
import Testing

@testable import FunctionHost

/// What the command rate doesn't cover: WebSocket pings (answered by the library, never seen as
/// commands) and acks (one per push, so left out of the command rate). A flood of either is
/// closed with 4116; a client that pings now and then, or acks every push as the JS SDK does, is
/// served on.
@Suite struct RealtimeControlFloodTests {
    /// A ping frame as a client sends it.
    static let ping = WebSocketOutboundWriter.OutboundFrame.custom(
        WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer(string: "keep-alive")))

    /// An ack of `count` ids, large as a hostile client makes it.
    static func ack(ids count: Int) -> GenericCommand {
        var command = Realtime.command(.ack, appID: nil, installationID: "livequery-A")
        var ack = AckCommand()
        ack.ids = (0..<count).map { "message-\($0)" }
        command.ackMessage = ack
        return command
    }

    @Test func aPingFloodIsClosedAsTooFast() async throws {
        try await Realtime.serve(limits: RealtimeLimits(pingsPerSecond: 0.001, pingBurst: 5)) { api, _ in
            let close = try await Realtime.connect(port: api.port) { session in
                for _ in 0..<200 { try? await session.outbound.write(Self.ping) }
                try await session.drain()
            }
            #expect(close?.closeCode == .unknown(4116))
            try await RealtimeAttackTests.stillServes(api.port)
        }
    }

    /// Pings sent in the handshake's own packet reach the server before the connection's task
    /// has started: the limiter is in place from the upgrade on, so they are counted too (when
    /// the task installed it, a burst like this was answered in full, pong by pong).
    @Test func pingsSentWithTheHandshakeAreLimitedToo() async throws {
        try await Realtime.serve(limits: RealtimeLimits(pingsPerSecond: 0.001, pingBurst: 5)) { api, _ in
            let connection = try RawConnection(port: api.port)
            let mask: [UInt8] = [0x01, 0x02, 0x03, 0x04]
            let ping: [UInt8] = [0x89, 0x80 | 4] + mask + Array("ping".utf8).enumerated().map { $1 ^ mask[$0 % 4] }
            let pings = Array((0..<200).map { _ in ping }.joined())
            try connection.send(bytes: Array(RealtimeEdgeTests.upgrade(origin: nil).utf8) + pings)
            let received = try await connection.read(untilContaining: RealtimeClose.tooFast.reason)
            #expect(received.hasPrefix("HTTP/1.1 101"))
            // A close frame (0x88), its length, 4116 (0x1014) and the reason.
            #expect(received.hasSuffix("\u{10}\u{14}" + RealtimeClose.tooFast.reason))
            // At most the burst's pongs (0x8A, 4 bytes of payload) were written before it.
            #expect(received.components(separatedBy: "\u{FFFD}\u{04}ping").count - 1 <= 5)
        }
    }

    @Test func aClientPingingNowAndThenIsServed() async throws {
        try await Realtime.serve(limits: RealtimeLimits(pingsPerSecond: 0.001, pingBurst: 5)) { api, _ in
            let close = try await Realtime.connect(port: api.port) { session in
                for i in 1...4 {
                    try await session.outbound.write(Self.ping)
                    // The echo is read after the ping in order: answered, nothing was decided
                    // against the connection (a close drops later answers).
                    try await session.send(Realtime.command(.echo, i: Int32(i), appID: nil, service: nil))
                    let answer = try await session.command()
                    #expect(answer.cmd == .echo && answer.i == Int32(i))
                }
                try await session.outbound.close(.normalClosure, reason: nil)
                try await session.drain()
            }
            #expect(close?.closeCode != .unknown(4116))
        }
    }

    @Test func acksBeyondThePushesReceivedAreClosedAsTooFast() async throws {
        try await Realtime.serve(limits: RealtimeLimits(ackBurst: 3)) { api, connections in
            let close = try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.login, i: 1, installationID: "livequery-A"))
                #expect(try await session.command().cmd == .loggedin)
                let sink = try #require(connections.sink("livequery-A"))
                #expect(sink.push([Realtime.event(.create)]))
                #expect(try await session.command().cmd == .data)
                // One push and a burst of 3 allow 4 acks: 1 000 large ones are a flood.
                let ack = Self.ack(ids: 1000)
                #expect(try ack.frameBytes().count > 10_000)
                for _ in 0..<1000 { try? await session.send(ack) }
                try await session.drain()
            }
            #expect(close?.closeCode == .unknown(4116))
            await connections.wait(for: .detached("livequery-A"))
            try await RealtimeAttackTests.stillServes(api.port)
        }
    }

    @Test func aClientAckingEveryPushIsNeverClosed() async throws {
        // No burst at all: each ack is allowed by the push it answers, in every dialect.
        for subProtocol in ["lc.protobuf2.3", "lc.json.3"] {
            try await Realtime.serve(limits: RealtimeLimits(ackBurst: 0)) { api, connections in
                let close = try await Realtime.connect(port: api.port, subProtocol: subProtocol) { session in
                    let json = subProtocol == "lc.json.3"
                    if json {
                        try await session.send(text: #"{"cmd":"login","i":1,"appId":"app","installationId":"livequery-A","service":1}"#)
                        #expect(try await session.text().contains("loggedin"))
                    } else {
                        try await session.send(Realtime.command(.login, i: 1, installationID: "livequery-A"))
                        #expect(try await session.command().cmd == .loggedin)
                    }
                    let sink = try #require(connections.sink("livequery-A"))
                    for round in 0..<50 {
                        #expect(sink.push([Realtime.event(.update, objectID: "o\(round)")]))
                        if json {
                            #expect(try await session.text().contains(#""data""#))
                            try await session.send(text: #"{"cmd":"ack","appId":"app","installationId":"livequery-A","service":1}"#)
                        } else {
                            #expect(try await session.command().cmd == .data)
                            try await session.send(Self.ack(ids: 1))
                        }
                    }
                    // Answered after every ack was taken: the connection is open.
                    if json {
                        try await session.send(text: #"{"cmd":"echo","i":9}"#)
                        #expect(try await session.text().contains("echo"))
                    } else {
                        try await session.send(Realtime.command(.echo, i: 9, appID: nil, service: nil))
                        #expect(try await session.command().cmd == .echo)
                    }
                    try await session.outbound.close(.normalClosure, reason: nil)
                    try await session.drain()
                }
                #expect(close?.closeCode != .unknown(4116))
            }
        }
    }
}
