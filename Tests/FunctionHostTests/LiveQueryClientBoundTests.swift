import Foundation
import HTTPTypes
import JSON
import LiveQuery
import TestSupport
import Testing

@testable import FunctionHost

/// Attack through the route: a client address subscribing across fresh subscription ids until
/// the host's cap is full. Past its share it gets the rate limit's answer (429, code 429) and
/// nothing is stored; other addresses still subscribe; unsubscribing gives its share back.
@Suite struct LiveQueryClientBoundTests {
    static func subscribe(_ api: API, _ n: Int, id: String, from address: String) async throws -> Reply {
        try await api.post(
            "/1.1/LiveQuery/subscribe", headers: RateLimitTests.from(address),
            ["id": .string(id), "query": ["className": "Todo", "where": ["n": .int(Int64(n))]]])
    }

    @Test func anAddressAtItsShareIsRefusedAndAnotherStillSubscribes() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, transport: .socket,
            configure: {
                $0.liveQueryLimits.subscriptionsPerAddress = 2
                // The test client plays the proxy in front.
                $0.trustedProxies = TrustedProxies(list: "127.0.0.1")!
            }
        ) { api in
            let first = try await Self.subscribe(api, 0, id: "livequery-a1", from: "203.0.113.1")
            let queryID = try #require(first["query_id"]?.stringValue, "\(first)")
            #expect(try await Self.subscribe(api, 1, id: "livequery-a2", from: "203.0.113.1")["query_id"] != nil)
            let refused = try await Self.subscribe(api, 2, id: "livequery-a3", from: "203.0.113.1")
            expectError(refused, code: 429, status: .tooManyRequests)
            #expect(try await Self.subscribe(api, 2, id: "livequery-b1", from: "203.0.113.2")["query_id"] != nil)
            _ = try await api.post(
                "/1.1/LiveQuery/unsubscribe", headers: RateLimitTests.from("203.0.113.1"),
                ["id": "livequery-a1", "query_id": .string(queryID)])
            #expect(try await Self.subscribe(api, 2, id: "livequery-a3", from: "203.0.113.1")["query_id"] != nil)
        }
    }
}
