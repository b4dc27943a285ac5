import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `meta.remoteAddress` behind a trusted proxy whose `X-Forwarded-For` is malformed (nginx's
/// `unknown`, a broken list): the proxy's `X-Real-IP` names the client, as LeanEngine reads it
/// first. A hop with its port (IIS ARR, Azure Application Gateway) is not malformed: it is its
/// address. From a peer nobody trusts, neither header is believed.
@Suite struct RemoteAddressFallbackTests {
    static let script = """
        AV.Cloud.define('where', function (request) { return request.meta.remoteAddress; });
        """

    static func whereFrom(_ api: API, _ pairs: [(String, String)]) async throws -> JSONValue? {
        try await api.post("/1.1/functions/where", headers: Headers.make(EdgeFixture.client + pairs), [:])["result"]
    }

    /// A server whose test client plays the one trusted proxy (loopback).
    static func behindLoopbackProxy(perClientRate: Double? = nil, _ body: @Sendable (API) async throws -> Void) async throws {
        try await EdgeFixture.run(
            scripts: ["cloud.js": Self.script], transport: .socket,
            configure: {
                $0.trustedProxies = TrustedProxies(list: "127.0.0.1")!
                if let perClientRate { $0.rateLimits.perClient = perClientRate }
            }
        ) { api, _ in try await body(api) }
    }

    @Test func aMalformedForwardedForFallsBackToXRealIP() async throws {
        try await Self.behindLoopbackProxy { api in
            let malformed = [
                "unknown", "203.0.113.7,,", "not an address, 203.0.113.7 junk",
                // Not an address with a port either: a port out of range or missing, IPv4 in
                // brackets, IPv6 without them, a bracket unclosed, a name.
                "203.0.113.7:65536", "203.0.113.7:", "203.0.113.7:+80", "[203.0.113.7]:80", "::ffff:203.0.113.7:80",
                "[2001:db8::1:443", "[2001:db8::1]", "[2001:db8::1]:", "proxy.example.com:80", "203.0.113.7:80:80",
            ]
            for malformed in malformed {
                let address = try await Self.whereFrom(api, [("X-Forwarded-For", malformed), ("X-Real-IP", "198.51.100.9")])
                #expect(address == "198.51.100.9", "\(malformed): \(String(describing: address))")
                // With no usable X-Real-IP either, the peer.
                let peer = try await Self.whereFrom(api, [("X-Forwarded-For", malformed), ("X-Real-IP", "also junk")])
                #expect(peer == "127.0.0.1", "\(malformed): \(String(describing: peer))")
            }
            // A well-formed list still wins over X-Real-IP, read from the right as before.
            let chained = try await Self.whereFrom(api, [("X-Forwarded-For", "6.6.6.6, 203.0.113.7"), ("X-Real-IP", "198.51.100.9")])
            #expect(chained == "203.0.113.7")
        }
    }

    /// The attacker's requests: a client's own `X-Real-IP` beside a proxy's `ip:port` hop.
    @Test func aHopWithItsPortIsItsAddressNotAReasonToBelieveXRealIP() async throws {
        try await Self.behindLoopbackProxy { api in
            let cases = [
                ("203.0.113.9:5555", "203.0.113.9"), ("[2001:db8::1]:443", "2001:db8::1"), ("203.0.113.9:0", "203.0.113.9"),
                ("[::ffff:203.0.113.9]:65535", "::ffff:203.0.113.9"),
                // Read from the right as ever: what the client wrote at the left is skipped.
                ("6.6.6.6, 203.0.113.9:5555", "203.0.113.9"), ("6.6.6.6:1, [2001:db8::1]:443", "2001:db8::1"),
            ]
            for (forwarded, client) in cases {
                let address = try await Self.whereFrom(api, [("X-Forwarded-For", forwarded), ("X-Real-IP", "6.6.6.6")])
                #expect(address == .string(client), "\(forwarded): \(String(describing: address))")
            }
        }
        // What the rate limit counts is that address too: rotating X-Real-IP gets no fresh allowance.
        try await Self.behindLoopbackProxy(perClientRate: 0.001) { api in
            let first = try await api.get("/1.1/date", headers: Headers.make(EdgeFixture.client + [
                ("X-Forwarded-For", "203.0.113.9:5555"), ("X-Real-IP", "6.6.6.6"),
            ]))
            #expect(first.status == .ok, "\(first)")
            let second = try await api.get("/1.1/date", headers: Headers.make(EdgeFixture.client + [
                ("X-Forwarded-For", "203.0.113.9:6666"), ("X-Real-IP", "6.6.6.7"),
            ]))
            expectError(second, code: 429, status: .tooManyRequests)
            // Another client behind the same proxy still has its own allowance.
            let other = try await api.get("/1.1/date", headers: Headers.make(EdgeFixture.client + [("X-Forwarded-For", "[2001:db8::1]:443")]))
            #expect(other.status == .ok, "\(other)")
        }
    }

    @Test func anUntrustedPeerCannotSpoofThroughTheFallback() async throws {
        try await EdgeFixture.run(scripts: ["cloud.js": Self.script], transport: .socket) { api, _ in
            let address = try await Self.whereFrom(api, [("X-Forwarded-For", "unknown"), ("X-Real-IP", "198.51.100.9")])
            #expect(address == "127.0.0.1")
        }
    }
}
