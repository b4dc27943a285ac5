import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `meta.remoteAddress` behind a trusted proxy whose `X-Forwarded-For` is malformed (nginx's
/// `unknown`, a port, a broken list): the proxy's `X-Real-IP` names the client, as LeanEngine
/// reads it first. From a peer nobody trusts, neither header is believed.
@Suite struct RemoteAddressFallbackTests {
    static let script = """
        AV.Cloud.define('where', function (request) { return request.meta.remoteAddress; });
        """

    static func whereFrom(_ api: API, _ pairs: [(String, String)]) async throws -> JSONValue? {
        try await api.post("/1.1/functions/where", headers: Headers.make(EdgeFixture.client + pairs), [:])["result"]
    }

    @Test func aMalformedForwardedForFallsBackToXRealIP() async throws {
        try await EdgeFixture.run(
            scripts: ["cloud.js": Self.script], transport: .socket,
            configure: { $0.trustedProxies = TrustedProxies(list: "127.0.0.1")! }
        ) { api, _ in
            for malformed in ["unknown", "203.0.113.7:4711", "203.0.113.7,,", "not an address, 203.0.113.7 junk"] {
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

    @Test func anUntrustedPeerCannotSpoofThroughTheFallback() async throws {
        try await EdgeFixture.run(scripts: ["cloud.js": Self.script], transport: .socket) { api, _ in
            let address = try await Self.whereFrom(api, [("X-Forwarded-For", "unknown"), ("X-Real-IP", "198.51.100.9")])
            #expect(address == "127.0.0.1")
        }
    }
}
