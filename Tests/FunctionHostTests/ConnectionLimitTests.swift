import Dispatch
import Foundation
import TestSupport
import Testing

@testable import FunctionHost

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The second attacker's "idle sockets lock everyone out": connections that send nothing, or
/// headers that never end, are closed, and one address can't hold more than its share.
@Suite struct ConnectionLimitTests {
    /// Runs `body` against a server on a real socket (the limits live in the connection's
    /// channel), on data of its own, with these connection limits.
    static func serve(_ limits: ConnectionLimits, _ body: @Sendable (API) async throws -> Void) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, transport: .socket, configure: { $0.connectionLimits = limits }, body)
    }

    /// Sends `text` on `connection` every 20 ms until the server closes it or the task is
    /// cancelled: the pace of a client trickling a request, each part restarting the idle timer.
    static func trickle(_ text: String, on connection: RawConnection) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                guard (try? connection.send(text)) != nil else { return }
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    @Test func anIdleConnectionIsClosed() async throws {
        try await Self.serve(
            ConnectionLimits(idleTimeout: .milliseconds(300), headerTimeout: .seconds(120))
        ) { api in
            // Served once, then silent: the server hangs up.
            let served = try RawConnection(port: api.port)
            try served.send("GET /__engine/1/ping HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try await served.readUntilClosed().hasPrefix("HTTP/1.1 200"))
            // Silent from the start.
            let silent = try RawConnection(port: api.port)
            #expect(try await silent.readUntilClosed() == "")
        }
    }

    @Test func headersThatNeverEndAreCut() async throws {
        // The idle timeout is far past the test's patience: only the header deadline can close it.
        try await Self.serve(
            ConnectionLimits(idleTimeout: .seconds(600), headerTimeout: .milliseconds(300))
        ) { api in
            let slow = try RawConnection(port: api.port)
            try slow.send("GET /__engine/1/ping HTTP/1.1\r\nHost: test\r\nX-Slow: 1\r\n")
            #expect(try await slow.readUntilClosed() == "")
            // A whole request on a fresh connection is served as ever.
            let prompt = try RawConnection(port: api.port)
            try prompt.send("GET /__engine/1/ping HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
            #expect(try await prompt.readUntilClosed().hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func oneAddressHoldsAtMostItsShare() async throws {
        try await Self.serve(
            ConnectionLimits(idleTimeout: .seconds(600), headerTimeout: .seconds(600), perAddress: 3)
        ) { api in
            // Three connections from 127.0.0.2, each known to the server (it answered on it).
            var held: [RawConnection] = []
            for _ in 0..<3 {
                let connection = try RawConnection(port: api.port, from: "127.0.0.2")
                try connection.send("GET /__engine/1/ping HTTP/1.1\r\nHost: test\r\n\r\n")
                #expect(try await connection.readResponseHead().hasPrefix("HTTP/1.1 200"))
                held.append(connection)
            }
            // A fourth from the same address is closed unanswered.
            let extra = try RawConnection(port: api.port, from: "127.0.0.2")
            try? extra.send("GET /__engine/1/ping HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try await extra.readUntilClosed() == "")
            // Another address is served.
            let other = try RawConnection(port: api.port, from: "127.0.0.3")
            try other.send("GET /__engine/1/ping HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
            #expect(try await other.readUntilClosed().hasPrefix("HTTP/1.1 200"))
            withExtendedLifetime(held) {}
        }
    }

    @Test func aBodyTricklingBelowTheRateIsCut() async throws {
        // Only the body rate can close it: the idle and header limits are past the test's patience.
        try await Self.serve(
            ConnectionLimits(idleTimeout: .seconds(600), headerTimeout: .seconds(600), bodyWindow: .milliseconds(300), bodyBytesPerWindow: 1000)
        ) { api in
            for chunked in [false, true] {
                let slow = try RawConnection(port: api.port)
                let framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: 100000"
                try slow.send(
                    "POST /1.1/classes/Slow HTTP/1.1\r\nHost: test\r\nX-LC-Id: app\r\nX-LC-Key: key\r\n"
                        + "Content-Type: application/json\r\n\(framing)\r\n\r\n")
                // A byte every 20 ms: each part restarts the idle timer, but 15 a window is under 1000.
                let trickle = Self.trickle(chunked ? "1\r\n \r\n" : " ", on: slow)
                defer { trickle.cancel() }
                #expect(try await slow.readUntilClosed().hasPrefix("HTTP/1.1 408"))
            }
        }
    }

    @Test func aLaterRequestsHeadersTricklingAreCut() async throws {
        try await Self.serve(
            ConnectionLimits(idleTimeout: .seconds(600), headerTimeout: .milliseconds(300))
        ) { api in
            let connection = try RawConnection(port: api.port)
            try connection.send("GET /__engine/1/ping HTTP/1.1\r\nHost: test\r\n\r\n")
            #expect(try await connection.readResponseHead().hasPrefix("HTTP/1.1 200"))
            // The second request's headers, a line every 20 ms, never ending.
            try connection.send("GET /__engine/1/ping HTTP/1.1\r\nHost: test\r\n")
            let trickle = Self.trickle("X-Slow: 1\r\n", on: connection)
            defer { trickle.cancel() }
            #expect(try await !connection.readUntilClosed().contains("HTTP/1.1"))
        }
    }

    @Test func aBodyAtAnOrdinaryPaceWithPausesArrives() async throws {
        try await Self.serve(
            ConnectionLimits(idleTimeout: .seconds(600), headerTimeout: .seconds(600), bodyWindow: .seconds(10), bodyBytesPerWindow: 1000)
        ) { api in
            // 4000 bytes in four parts, pauses (pacing, not synchronisation) well inside a window.
            let padding = String(repeating: " ", count: 3990)
            let body = Array(#"{"a":1}"# + padding + "   ")
            let connection = try RawConnection(port: api.port)
            try connection.send(
                "POST /1.1/classes/Slow HTTP/1.1\r\nHost: test\r\nX-LC-Id: app\r\nX-LC-Key: key\r\nConnection: close\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n")
            for start in stride(from: 0, to: body.count, by: 1000) {
                try await Task.sleep(for: .milliseconds(300))
                try connection.send(String(body[start..<min(start + 1000, body.count)]))
            }
            #expect(try await connection.readUntilClosed().hasPrefix("HTTP/1.1 201"))
        }
    }

    @Test func ipv6ClientsAreCountedByTheirSlash64() {
        #expect(ConnectionCounts.key(ofPeer: "2001:db8:1:2:aaaa::1") == ConnectionCounts.key(ofPeer: "2001:db8:1:2:bbbb:cccc:dddd:eeee"))
        #expect(ConnectionCounts.key(ofPeer: "2001:db8:1:2::1") != ConnectionCounts.key(ofPeer: "2001:db8:1:3::1"))
        #expect(ConnectionCounts.key(ofPeer: "192.0.2.7") == "192.0.2.7")
        #expect(ConnectionCounts.key(ofPeer: "::ffff:192.0.2.7") == "192.0.2.7")
        let counts = ConnectionCounts(limit: 2)
        #expect(counts.admit("2001:db8::1") && counts.admit("2001:db8::2"))
        #expect(!counts.admit("2001:db8::ffff:1"))
        #expect(counts.admit("2001:db8:0:1::1"))
        counts.release("2001:db8::1")
        #expect(counts.count("2001:db8::3") == 1)
    }

    @Test func connectionCountsAreKeptPerAddress() {
        let counts = ConnectionCounts(limit: 2)
        #expect(counts.admit("a") && counts.admit("a"))
        #expect(!counts.admit("a"))
        #expect(counts.admit("b"))
        counts.release("a")
        #expect(counts.count("a") == 1)
        #expect(counts.admit("a"))
        counts.release("b")
        #expect(counts.count("b") == 0)
    }
}

/// A plain TCP connection to the test server, from a chosen loopback address, whose reads wait
/// on a thread of their own (never on Swift's cooperative threads).
final class RawConnection: @unchecked Sendable {
    private let socketDescriptor: Int32

    /// Connects to `127.0.0.1:port` from `source` (any 127.x.y.z is this machine).
    init(port: Int, from source: String = "127.0.0.1") throws {
        #if canImport(Glibc)
        socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        socketDescriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socketDescriptor >= 0 else { throw POSIXError(.EBADF) }
        // A ceiling on each wait, so a regression fails the test instead of hanging it.
        var ceiling = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socketDescriptor, SOL_SOCKET, SO_RCVTIMEO, &ceiling, socklen_t(MemoryLayout<timeval>.size))
        var local = Self.address(source, port: 0)
        var remote = Self.address("127.0.0.1", port: port)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, connected == 0 else {
            close(socketDescriptor)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    deinit { close(socketDescriptor) }

    private static func address(_ text: String, port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, text, &address.sin_addr)
        return address
    }

    /// Sends text.
    func send(_ text: String) throws {
        try send(bytes: Array(text.utf8))
    }

    /// Sends bytes (a WebSocket frame, say).
    func send(bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(socketDescriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Everything the server sends until it closes the connection.
    ///
    /// - Throws: `ETIMEDOUT` when it hasn't closed it within the 30 s ceiling.
    func readUntilClosed() async throws -> String {
        try await read { received in false }
    }

    /// What the server sends up to the end of a response's headers.
    func readResponseHead() async throws -> String {
        try await read { received in received.contains("\r\n\r\n") }
    }

    /// What the server sends until it has sent `text` (or closed).
    func read(untilContaining text: String) async throws -> String {
        try await read { received in received.contains(text) }
    }

    private func read(until done: @escaping @Sendable (String) -> Bool) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { [self] in
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = buffer.withUnsafeMutableBytes { recv(socketDescriptor, $0.baseAddress, $0.count, 0) }
                    if count > 0 {
                        received += buffer[0..<count]
                        if done(String(decoding: received, as: UTF8.self)) { break }
                    } else if count == 0 || errno == ECONNRESET {
                        break  // closed by the server
                    } else {
                        continuation.resume(throwing: POSIXError(.ETIMEDOUT))
                        return
                    }
                }
                continuation.resume(returning: String(decoding: received, as: UTF8.self))
            }
        }
    }
}
