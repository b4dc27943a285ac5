import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Rate limits per client address and per function, and body limits per route.
@Suite struct RateLimitTests {
    @Test func bucketsRefillAtTheirRate() {
        let buckets = TokenBuckets(rate: 2, burst: 2)
        let start = ContinuousClock.now
        #expect(buckets.take("a", now: start) == nil)
        #expect(buckets.take("a", now: start) == nil)
        #expect(buckets.take("a", now: start) == .milliseconds(500))
        // Another key has its own bucket.
        #expect(buckets.take("b", now: start) == nil)
        #expect(buckets.take("a", now: start + .milliseconds(500)) == nil)
        #expect(buckets.take("a", now: start + .milliseconds(600)) != nil)
        // A quiet client's bucket fills up to the burst, no further.
        #expect(buckets.take("a", now: start + .seconds(60)) == nil)
        #expect(buckets.take("a", now: start + .seconds(60)) == nil)
        #expect(buckets.take("a", now: start + .seconds(60)) != nil)
    }

    /// An IPv6 client is its /64, as the connection and message limits count it: rotating
    /// through its 2^64 addresses gets it no new buckets.
    @Test func anIPv6ClientIsRatedByItsSlash64() {
        let limiter = RateLimiter(RateLimits(perClient: 1))
        #expect(throws: Never.self) { try limiter.admit(client: "2001:db8:1:2::1") }
        #expect(throws: HostError.self) { try limiter.admit(client: "2001:db8:1:2:ffff::9") }
        #expect(throws: Never.self) { try limiter.admit(client: "2001:db8:1:3::1") }
        #expect(throws: Never.self) { try limiter.admit(client: "192.0.2.7") }
        #expect(throws: HostError.self) { try limiter.admit(client: "::ffff:192.0.2.7") }
    }

    /// A refused batch is told to wait until its client's debt is paid, not a token longer.
    @Test func aRefusalWaitsForWhatIsNeeded() {
        let buckets = TokenBuckets(rate: 1, burst: 1)
        let start = ContinuousClock.now
        #expect(buckets.take("a", count: 3, needing: 0, now: start) == nil)
        #expect(buckets.take("a", count: 1, needing: 0, now: start) == .seconds(2))
    }

    @Test func functionRatesAreRead() {
        #expect(RateLimits.functionRates("checkout=5, *=50") == ["checkout": 5, "*": 50])
        #expect(RateLimits.functionRates("checkout") == nil)
        #expect(RateLimits.functionRates("checkout=-1") == nil)
    }

    static func from(_ address: String) -> HTTPFields {
        Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-Forwarded-For", address)])
    }

    @Test func aClientPastItsRateGets429AndOthersDoNot() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // One request, then none for a thousand seconds: no refill can happen during the test.
        // The test client plays the proxy in front: the connection's peer, trusted.
        try await TestServer.run(
            dataDirectory: directory, transport: .socket,
            configure: {
                $0.rateLimits.perClient = 0.001
                // The test client plays the proxy in front.
                $0.trustedProxies = TrustedProxies(list: "127.0.0.1")!
            }
        ) { api in
            #expect(try await api.get("/1.1/date", headers: Self.from("203.0.113.1")).status == .ok)
            let refused = try await api.get("/1.1/classes/Todo", headers: Self.from("203.0.113.1"))
            expectError(refused, code: 429, status: .tooManyRequests)
            #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1, "\(refused)")
            // Another client (behind the same local proxy) has its own allowance.
            #expect(try await api.get("/1.1/date", headers: Self.from("203.0.113.2")).status == .ok)
            // The health check is never limited.
            for _ in 0..<3 { #expect(try await api.get("/__engine/1/ping", headers: Self.from("203.0.113.1")).status == .ok) }
        }
    }

    @Test func aFunctionPastItsRateGets429() async throws {
        var functions = FunctionRegistry()
        functions.define("hello") { _ in "hi" }
        functions.define("other") { _ in "ok" }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, functions: functions, configure: { $0.rateLimits.perFunction = ["hello": 0.001] }
        ) { api in
            #expect(try await api.post("/1.1/functions/hello", [:])["result"] == "hi")
            expectError(try await api.post("/1.1/functions/hello", [:]), code: 429, status: .tooManyRequests)
            #expect(try await api.post("/1.1/functions/other", [:])["result"] == "ok")
            #expect(try await api.post("/1.1/functions/other", [:])["result"] == "ok")
        }
    }

    @Test func bodiesAreLimitedByRoute() async throws {
        var functions = FunctionRegistry()
        functions.define("size") { request in request.params["blob"]?.stringValue?.count ?? 0 }
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, functions: functions) { api in
            let blob = JSONValue.string(String(repeating: "x", count: 1_200_000))
            expectError(try await api.post("/1.1/classes/Blob", ["blob": blob]), code: 413, status: .contentTooLarge)
            expectError(try await api.post("/1.1/login", ["username": blob, "password": "x"]), code: 413)
            // A function's parameters may be larger.
            #expect(try await api.post("/1.1/functions/size", ["blob": blob])["result"] == 1_200_000)
            #expect(try await api.find("Blob", headers: Headers.master).results.isEmpty)
        }
    }
}
