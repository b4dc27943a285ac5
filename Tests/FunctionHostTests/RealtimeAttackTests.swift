import Foundation
import LiveQuery
import NIOCore
import HummingbirdWSClient
import NIOWebSocket
import RealtimeProtocol
import TestSupport
import Testing

@testable import FunctionHost

/// What a hostile or broken realtime client gets: a login for another app or with no usable id
/// is refused and closed, frames too large or malformed close the connection with a clear code,
/// commands too fast and a client that stops reading its events are closed, a sub-protocol not
/// served is refused at the handshake, one address holds no more than its share, and a silent
/// socket is closed. The server goes on serving others every time.
@Suite struct RealtimeAttackTests {
    @Test func aLoginForAnotherAppIsRefusedAndClosedFatally() async throws {
        try await Realtime.serve { api, connections in
            let close = try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.login, i: 1, appID: "someone-else", installationID: "livequery-X"))
                let error = try await session.command()
                #expect(error.cmd == .error && error.i == 1 && error.errorMessage.code == 4100)
                try await session.drain()
            }
            // 4100: the JS SDK gives up rather than reconnecting for ever.
            #expect(close?.closeCode == .unknown(4100))
            #expect(connections.changes.isEmpty)
        }
    }

    @Test func aLoginWithoutAUsableSubscriptionIDIsRefused() async throws {
        try await Realtime.serve { api, connections in
            for id in ["", "has space", String(repeating: "a", count: 200), "tab\there"] {
                let close = try await Realtime.connect(port: api.port) { session in
                    try await session.send(Realtime.command(.login, i: 2, installationID: id))
                    let error = try await session.command()
                    #expect(error.cmd == .error && error.errorMessage.code == 4103)
                    try await session.drain()
                }
                #expect(close?.closeCode == .unknown(4103))
            }
            #expect(connections.changes.isEmpty)
        }
    }

    @Test func aLoginTheSubscriptionsRefuseIsAnsweredWithAnError() async throws {
        try await Realtime.serve(connections: RecordingConnections(admits: false)) { api, _ in
            try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.login, i: 3, installationID: "livequery-full"))
                let error = try await session.command()
                #expect(error.cmd == .error && error.i == 3 && error.errorMessage.code == 4111)
                try await session.outbound.close(.normalClosure, reason: nil)
                try await session.drain()
            }
        }
    }

    @Test func anOversizedFrameClosesTheConnection() async throws {
        try await Realtime.serve(limits: RealtimeLimits(maxMessageSize: 1024)) { api, _ in
            let close = try await Realtime.connect(port: api.port) { session in
                var login = Realtime.command(.login, i: 1, installationID: "livequery-big")
                login.appID = String(repeating: "a", count: 4096)
                try await session.send(login)
                try await session.drain()
            }
            #expect(close?.closeCode == .messageTooLarge)
            try await Self.stillServes(api.port)
        }
    }

    @Test func malformedFramesCloseTheConnectionWithInvalidData() async throws {
        try await Realtime.serve { api, _ in
            // Bytes that are no command; a text frame on the binary protocol.
            for frame in [WebSocketOutboundWriter.OutboundFrame.binary(ByteBuffer(bytes: [0xff, 0xff, 0xff, 0x0f])), .text("hello")] {
                let close = try await Realtime.connect(port: api.port) { session in
                    try await session.outbound.write(frame)
                    try await session.drain()
                }
                #expect(close?.closeCode == .dataInconsistentWithMessage)
            }
            // Text that is no base64; JSON that is no object, or not JSON; a command name unknown.
            for (subProtocol, text) in [
                ("lc.proto2base64.3", "%%% not base64"), ("lc.json.3", "[1,2]"), ("lc.json.3", "{\"cmd\""),
                ("lc.json.3", #"{"cmd":"direct","i":1}"#),
            ] {
                let close = try await Realtime.connect(port: api.port, subProtocol: subProtocol) { session in
                    try await session.send(text: text)
                    try await session.drain()
                }
                #expect(close?.closeCode == .dataInconsistentWithMessage, "\(subProtocol) \(text)")
            }
            try await Self.stillServes(api.port)
        }
    }

    @Test func commandsSentTooFastCloseTheConnection() async throws {
        // A burst of 3 and next to no refill: the fourth command is one too many.
        try await Realtime.serve(limits: RealtimeLimits(commandsPerSecond: 0.001, commandBurst: 3)) { api, _ in
            let close = try await Realtime.connect(port: api.port) { session in
                for i in 1...10 { try? await session.send(Realtime.command(.echo, i: Int32(i), appID: nil, service: nil)) }
                var answered = 0
                while let message = try await session.next() {
                    if case .binary = message { answered += 1 }
                }
                #expect(answered == 3)
            }
            #expect(close?.closeCode == .unknown(4116))
        }
    }

    @Test func aClientThatStopsReadingIsClosedAsASlowConsumer() async throws {
        let limits = RealtimeLimits(maxQueuedEvents: 4, maxQueuedBytes: 1 << 20, closeGrace: .seconds(60))
        try await Realtime.serve(limits: limits) { api, connections in
            let close = try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.login, i: 1, installationID: "livequery-slow"))
                #expect(try await session.command().cmd == .loggedin)
                let sink = try #require(connections.sink("livequery-slow"))
                // This client reads nothing more: once the socket's buffers are full the
                // server's queue fills, and the push that doesn't fit is refused.
                let event = Realtime.event(.update, padding: 64 * 1024)
                var refused = false
                for _ in 0..<20_000 where !refused {
                    refused = !sink.push([event])
                }
                #expect(refused)
                // Once refused, every later push is too, and nothing more is queued.
                #expect(!sink.push([event]))
                // Reading again, the client gets what was already on its way, then the close.
                try await session.drain()
            }
            #expect(close?.closeCode == .unknown(4120))
            await connections.wait(for: .detached("livequery-slow"))
        }
    }

    @Test func answersNobodyReadsCountInTheQueue() {
        // A client that sends commands and never reads their answers: the answers queue as
        // pushes do, and past the bound the connection closes as a slow consumer.
        let closes = Recorded<RealtimeClose>()
        let outbox = RealtimeOutbox(limits: RealtimeLimits(maxQueuedEvents: 3)) { closes.record($0) }
        for i in 1...3 { outbox.reply(.command(Realtime.command(.echo, i: Int32(i)))) }
        #expect(outbox.closing == nil)
        outbox.reply(.command(Realtime.command(.echo, i: 4)))
        #expect(outbox.closing == .slowConsumer && closes.all == [.slowConsumer])
        // Closed: nothing more is queued, pushes included.
        #expect(!outbox.push([Realtime.event(.create)], installationID: "livequery-Z"))
    }

    @Test func aSubProtocolNotServedIsRefusedAtTheHandshake() async throws {
        try await Realtime.serve { api, _ in
            for offered in ["lc.json.1", "chat", nil] {
                let connection = try RawConnection(port: api.port)
                try connection.send(Self.upgrade(offering: offered))
                #expect(try await connection.readUntilClosed().hasPrefix("HTTP/1.1 400"), "\(offered ?? "none")")
            }
            try await Self.stillServes(api.port)
        }
    }

    @Test func oneAddressHoldsNoMoreSocketsThanItsShare() async throws {
        try await Realtime.serve(configure: { $0.connectionLimits.perAddress = 2 }) { api, _ in
            // Two WebSockets from 127.0.0.2, each upgraded (so known to the server)...
            var held: [RawConnection] = []
            for _ in 0..<2 {
                let connection = try RawConnection(port: api.port, from: "127.0.0.2")
                try connection.send(Self.upgrade(offering: "lc.protobuf2.3"))
                #expect(try await connection.readResponseHead().hasPrefix("HTTP/1.1 101"))
                held.append(connection)
            }
            // ...and a third from the same address is closed unanswered.
            let extra = try RawConnection(port: api.port, from: "127.0.0.2")
            try? extra.send(Self.upgrade(offering: "lc.protobuf2.3"))
            #expect(try await extra.readUntilClosed() == "")
            // Another address is served.
            try await Self.stillServes(api.port)
            withExtendedLifetime(held) {}
        }
    }

    /// A WebSocket handshake's request for `/realtime`.
    static func upgrade(offering subProtocol: String?) -> String {
        let protocolLine = subProtocol.map { "Sec-WebSocket-Protocol: \($0)\r\n" } ?? ""
        return "GET /realtime HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(protocolLine)\r\n"
    }

    @Test func aSilentSocketIsClosedAfterTheIdleTime() async throws {
        let limits = RealtimeLimits(minimumIdleTimeout: .milliseconds(300))
        try await Realtime.serve(limits: limits, configure: { $0.connectionLimits.idleTimeout = .milliseconds(300) }) { api, _ in
            let close = try await Realtime.connect(port: api.port) { session in
                try await session.send(Realtime.command(.echo, i: 1, appID: nil, service: nil))
                #expect(try await session.command().i == 1)
                // Nothing more is sent: the server closes.
                try await session.drain()
            }
            #expect(close?.closeCode == .unknown(4107))
        }
    }

    /// A fresh connection is still answered.
    static func stillServes(_ port: Int) async throws {
        try await Realtime.connect(port: port) { session in
            try await session.send(Realtime.command(.echo, i: 42, appID: nil, service: nil))
            #expect(try await session.command().i == 42)
            try await session.outbound.close(.normalClosure, reason: nil)
            try await session.drain()
        }
    }
}
