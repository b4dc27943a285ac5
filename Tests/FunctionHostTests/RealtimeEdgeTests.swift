import Foundation
import HummingbirdWSClient
import LiveQuery
import NIOWebSocket
import RealtimeProtocol
import TestSupport
import Testing

@testable import FunctionHost

/// The realtime endpoint's edges: what one client's connections may queue together, and which
/// web pages may open a socket.
@Suite struct RealtimeEdgeTests {
    @Test func theConnectionsOfOneClientShareOneQueueBudget() throws {
        let event = Realtime.event(.update, padding: 200)
        let size = event.json.utf8.count
        // Three events fit the client's budget, not four; each connection alone could queue more.
        let budget = RealtimeQueueBudget(limit: 3 * size + size / 2)
        let limits = RealtimeLimits(maxQueuedBytes: 1 << 20)
        let closes = Recorded<String>()
        func outbox(_ name: String, _ address: String) -> RealtimeOutbox {
            RealtimeOutbox(limits: limits, share: budget.share(forClient: address)) { _ in closes.record(name) }
        }
        // Two addresses of one IPv6 /64: one client.
        let a = outbox("a", "2001:db8::1")
        let b = outbox("b", "2001:db8::ffff")
        #expect(a.push([event], installationID: "a") && a.push([event], installationID: "a"))
        #expect(b.push([event], installationID: "b"))
        #expect(budget.queuedBytes(forClient: "2001:db8::1") == 3 * size)
        // b's next push would pass the client's budget: b is closed as a slow consumer, a isn't.
        #expect(!b.push([event], installationID: "b"))
        #expect(b.closing == .slowConsumer && a.closing == nil && closes.all == ["b"])
        // Another client (another /64) has its own budget.
        let other = outbox("other", "2001:db8:0:1::1")
        for _ in 0..<3 { #expect(other.push([event], installationID: "other")) }
        // A connection with nothing queued still gets its event: a slow neighbour can't starve
        // it; the bytes are counted all the same.
        let c = outbox("c", "2001:db8::2")
        #expect(c.push([event], installationID: "c") && c.closing == nil)
        #expect(budget.queuedBytes(forClient: "2001:db8::1") == 4 * size)
        // Written events give their bytes back; an ended connection gives back what it held,
        // and takes nothing more.
        a.delivered(events: 1, bytes: size)
        for ended in [a, b, c] { ended.release() }
        #expect(budget.queuedBytes(forClient: "2001:db8::1") == 0)
        #expect(!c.push([event], installationID: "c") && budget.queuedBytes(forClient: "2001:db8::1") == 0)
    }

    @Test func slowConnectionsOfOneAddressAreClosedPastTheirSharedBudget() async throws {
        // Each connection alone may queue 64 MiB; the address's connections together 1 MiB.
        let limits = RealtimeLimits(
            maxQueuedEvents: 100_000, maxQueuedBytes: 64 << 20, maxQueuedBytesPerAddress: 1 << 20, closeGrace: .seconds(60))
        try await Realtime.serve(limits: limits) { api, connections in
            let (loggedIn, ready) = AsyncStream.makeStream(of: String.self)
            let (resumed, resume) = AsyncStream.makeStream(of: Void.self)
            let gate = Gate(resumed)
            let ids = ["livequery-slow-a", "livequery-slow-b"]
            let clients = ids.map { id in
                Task {
                    try await Realtime.connect(port: api.port) { session in
                        try await session.send(Realtime.command(.login, i: 1, installationID: id))
                        #expect(try await session.command().cmd == .loggedin)
                        ready.yield(id)
                        // Reads nothing more until the pushes are done.
                        await gate.wait()
                        try await session.outbound.close(.normalClosure, reason: nil)
                        try await session.drain()
                    }
                }
            }
            var seen = 0
            for await _ in loggedIn {
                seen += 1
                if seen == ids.count { break }
            }
            let sinks = try ids.map { try #require(connections.sink($0)) }
            // Both connections from 127.0.0.1, alternately, 48 MiB each at most: less than
            // either's own bound even with every socket buffer full, so only the shared one
            // can refuse.
            let event = Realtime.event(.update, padding: 64 * 1024)
            var refused: [Int] = []
            for _ in 0..<768 where refused.isEmpty {
                for (index, sink) in sinks.enumerated() where refused.isEmpty && !sink.push([event]) {
                    refused.append(index)
                }
            }
            #expect(refused.count == 1)
            resume.yield()
            resume.finish()
            var closes: [UInt16?] = []
            for client in clients {
                guard case .unknown(let code)? = try await client.value?.closeCode else {
                    closes.append(nil)
                    continue
                }
                closes.append(code)
            }
            // The refused connection is closed as a slow consumer; the other closed itself.
            if let index = refused.first { #expect(closes[index] == 4120, "\(closes)") }
        }
    }

    @Test func everyOriginIsServedByDefault() async throws {
        try await Realtime.serve { api, _ in
            for origin in ["https://anywhere.example", nil] {
                let served = try await Self.echoes(port: api.port, origin: origin)
                #expect(served, "\(origin ?? "none")")
            }
        }
    }

    @Test func aPageOfAnOriginNotAllowedIsClosedWithInvalidOrigin() async throws {
        let allowed = try #require(WebOrigins(list: "https://app.example.com"))
        try await Realtime.serve(configure: { $0.realtimeOrigins = allowed }) { api, connections in
            // A page elsewhere gets 4110 (the JS SDK then gives up rather than reconnecting for
            // ever) before anything it sends is read: its login attaches nothing.
            let closed = try await Self.closesWithInvalidOrigin(port: api.port, origin: "https://evil.example")
            #expect(closed)
            #expect(connections.changes.isEmpty)
            // A listed page and a socket without an Origin (the mobile SDKs) are served.
            for origin in ["https://app.example.com", nil] {
                #expect(try await Self.echoes(port: api.port, origin: origin), "\(origin ?? "none")")
            }
        }
    }

    @Test func theRealtimeOriginsAreTheWebOriginsUnlessSet() async throws {
        let web = try #require(WebOrigins(list: "https://app.example.com"))
        try await Realtime.serve(configure: { $0.webOrigins = web }) { api, _ in
            let closed = try await Self.closesWithInvalidOrigin(port: api.port, origin: "https://evil.example")
            #expect(closed)
            #expect(try await Self.echoes(port: api.port, origin: "https://app.example.com"))
        }
        try await Realtime.serve(configure: { $0.webOrigins = web; $0.realtimeOrigins = .any }) { api, _ in
            let served = try await Self.echoes(port: api.port, origin: "https://evil.example")
            #expect(served)
        }
    }

    /// Whether a socket opened from a page of `origin` that logs in at once is closed with 4110
    /// and its login left unanswered. Read off the wire: the WebSocket client of the tests can
    /// miss a frame that arrives in the same read as the handshake's answer (browsers don't).
    static func closesWithInvalidOrigin(port: Int, origin: String) async throws -> Bool {
        let connection = try RawConnection(port: port)
        try connection.send(Self.upgrade(origin: origin))
        try connection.send(bytes: Self.maskedText(#"{"cmd":"login","i":1,"appId":"app","installationId":"livequery-evil"}"#))
        let received = try await connection.read(untilContaining: RealtimeClose.invalidOrigin.reason)
        // A close frame (0x88, not UTF-8 on its own), its length, 4110 (0x100E) and the reason.
        return received.hasPrefix("HTTP/1.1 101") && received.hasSuffix("\u{FFFD}%\u{10}\u{0E}" + RealtimeClose.invalidOrigin.reason)
    }

    /// Whether a socket opened from a page of `origin` (none: a mobile SDK) is served: its
    /// JSON keep-alive is answered.
    static func echoes(port: Int, origin: String?) async throws -> Bool {
        let connection = try RawConnection(port: port)
        try connection.send(Self.upgrade(origin: origin))
        guard try await connection.readResponseHead().hasPrefix("HTTP/1.1 101") else { return false }
        try connection.send(bytes: Self.maskedText("{}"))
        // A text frame (0x81, not UTF-8 on its own) of two bytes: `{}`.
        return try await connection.read(untilContaining: "\u{FFFD}\u{02}{}").hasSuffix("\u{FFFD}\u{02}{}")
    }

    /// A WebSocket handshake for `/realtime` in the JSON dialect, from a page of `origin`.
    static func upgrade(origin: String?) -> String {
        "GET /realtime HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: lc.json.3\r\n"
            + (origin.map { "Origin: \($0)\r\n" } ?? "") + "\r\n"
    }

    /// A client's text frame of a text under 126 bytes, masked as RFC 6455 requires of clients.
    static func maskedText(_ text: String) -> [UInt8] {
        let mask: [UInt8] = [0x01, 0x02, 0x03, 0x04]
        let payload = Array(text.utf8).enumerated().map { $1 ^ mask[$0 % 4] }
        return [0x81, 0x80 | UInt8(payload.count)] + mask + payload
    }
}

/// Holds its waiters until the stream it watches yields or ends.
private actor Gate {
    private var open = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(_ signal: AsyncStream<Void>) {
        Task { [weak self] in
            for await _ in signal { break }
            await self?.release()
        }
    }

    func wait() async {
        if open { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        open = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
