import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 23, items 9 and 12: what the server believes of a request. A signature is a credential
/// only near the time it was made; a client address comes from the connection unless a proxy
/// the operator named says otherwise.
@Suite struct EdgeRequestAttackTests {
    /// `X-LC-Sign` for a key at a timestamp (as its text: milliseconds or seconds).
    static func signed(_ key: String, at timestamp: String, master: Bool) -> HTTPFields {
        Headers.make([("X-LC-Id", "app"), ("X-LC-Sign", MD5.hex(timestamp + key) + "," + timestamp + (master ? ",master" : ""))])
    }

    /// Whether a master signature at this timestamp may create a role (only the master key may).
    static func masterAccepted(_ api: API, at timestamp: String) async throws -> Bool {
        let reply = try await api.post(
            "/1.1/classes/_Role", headers: signed("master", at: timestamp, master: true),
            ["name": .string("r" + UUID().uuidString.prefix(8)), "ACL": ["*": ["read": true]]])
        if reply.status == .unauthorized { return false }
        #expect(reply.status == .created, "\(reply)")
        return true
    }

    @Test func aMasterSignatureFromLongAgoIsRefused() async throws {
        let clock = TestClock()
        try await EdgeFixture.run(configure: { $0.clock = { clock.now } }) { api, _ in
            let now = clock.now.timeIntervalSince1970
            let milliseconds = { (offset: Double) in String(Int64((now + offset) * 1000)) }
            // A signature seen once, in 2001.
            #expect(try await Self.masterAccepted(api, at: "978307200000") == false)
            #expect(try await Self.masterAccepted(api, at: milliseconds(-16 * 60)) == false)
            #expect(try await Self.masterAccepted(api, at: milliseconds(16 * 60)) == false, "nor one dated ahead")
            #expect(try await Self.masterAccepted(api, at: milliseconds(0)))
            #expect(try await Self.masterAccepted(api, at: milliseconds(-14 * 60)), "clocks drift: 15 minutes either way")
            // The PHP SDK signs with seconds.
            #expect(try await Self.masterAccepted(api, at: String(Int64(now))))
            // The same signature stops working once the window has passed.
            let timestamp = milliseconds(0)
            #expect(try await Self.masterAccepted(api, at: timestamp))
            clock.advance(minutes: 16)
            #expect(try await Self.masterAccepted(api, at: timestamp) == false)
            // Client-key signatures too.
            let old = try await api.get("/1.1/classes/Todo", headers: Self.signed("key", at: timestamp, master: false))
            #expect(old.status == .unauthorized, "\(old)")
        }
    }

    @Test func theSignatureWindowIsConfigurable() async throws {
        let clock = TestClock()
        let configure: (inout HostConfiguration) -> Void = {
            $0.clock = { clock.now }
            $0.signatureWindow = 60
        }
        try await EdgeFixture.run(configure: configure) { api, _ async throws in
            let now = clock.now.timeIntervalSince1970
            #expect(try await Self.masterAccepted(api, at: String(Int64((now - 90) * 1000))) == false)
            #expect(try await Self.masterAccepted(api, at: String(Int64((now - 30) * 1000))))
        }
    }

    /// A function answering the client address the server settled on.
    static var whoami: FunctionRegistry {
        var functions = FunctionRegistry()
        functions.define("whoami") { request in request.remoteAddress ?? "none" }
        return functions
    }

    static func whoami(_ api: API, _ pairs: [(String, String)]) async throws -> JSONValue? {
        try await api.post("/1.1/functions/whoami", headers: Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key")] + pairs), [:])["result"]
    }

    @Test func forwardedAddressesFromAnUntrustedPeerAreIgnored() async throws {
        // The peer is the connection's address.
        try await EdgeFixture.run(functions: Self.whoami, transport: .socket, configure: { $0.rateLimits.perClient = 0.001 }) { api, _ in
            // Loopback is a private address, but nobody said it is a proxy.
            #expect(try await Self.whoami(api, [("X-Real-IP", "198.51.100.9")]) == "127.0.0.1")
            // Rotating the header gets no fresh allowance: one request a thousand seconds.
            let second = try await api.get("/1.1/date", headers: RateLimitTests.from("203.0.113.2"))
            expectError(second, code: 429, status: .tooManyRequests)
        }
    }

    @Test func aTrustedProxyNamesTheClientReadFromTheRight() async throws {
        try await EdgeFixture.run(
            functions: Self.whoami, transport: .socket, configure: { $0.trustedProxies = TrustedProxies(list: "10.0.0.0/8, 127.0.0.1")! }
        ) { api, _ async throws in
            #expect(try await Self.whoami(api, [("X-Real-IP", "198.51.100.9")]) == "198.51.100.9")
            // The proxy appended the address it saw; what the client wrote at the left is not it.
            #expect(try await Self.whoami(api, [("X-Forwarded-For", "6.6.6.6, 203.0.113.7")]) == "203.0.113.7")
            // Through two trusted proxies, the first untrusted address from the right.
            #expect(try await Self.whoami(api, [("X-Forwarded-For", "6.6.6.6, 203.0.113.7, 10.1.2.3")]) == "203.0.113.7")
            #expect(try await Self.whoami(api, []) == "127.0.0.1")
        }
        // A list naming other proxies trusts nothing from here.
        try await EdgeFixture.run(
            functions: Self.whoami, transport: .socket, configure: { $0.trustedProxies = TrustedProxies(list: "::1, 192.168.0.0/16")! }
        ) { api, _ async throws in
            #expect(try await Self.whoami(api, [("X-Forwarded-For", "203.0.113.7")]) == "127.0.0.1")
        }
    }

    @Test func trustedProxyListsReadAddressesAndRangesOfBothFamilies() throws {
        let proxies = try #require(TrustedProxies(list: "10.0.0.0/8, fd00::/8,192.168.1.1 , 2001:db8::/32"))
        for address in ["10.2.3.4", "::ffff:10.2.3.4", "fd12::1", "192.168.1.1", "2001:db8:1::5"] {
            #expect(proxies.contains(address), "\(address)")
        }
        for address in ["192.168.1.2", "11.0.0.1", "fe80::1", "2001:db9::1", "::1", "127.0.0.1", "not an address"] {
            #expect(!proxies.contains(address), "\(address)")
        }
        #expect(TrustedProxies(list: "0.0.0.0/0")?.contains("203.0.113.1") == true)
        #expect(TrustedProxies(list: "")?.isEmpty == true)
        for bad in ["10.0.0.0/33", "proxy.example.com", "fd00::/129", "10.0.0.1/x", "10.0.0"] {
            #expect(TrustedProxies(list: bad) == nil, "\(bad)")
        }
        #expect(!TrustedProxies.none.contains("127.0.0.1"))
    }
}
