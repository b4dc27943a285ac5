import DataAPI
import Foundation
import JSON
import Leaderboards
import Synchronization
import TestSupport
import Testing

/// `sum` statistics stay within ±2^53 over many writes, each within bounds: the write that would
/// pass it is refused with 400 code 1 and nothing of its request is written, on SQLite or
/// PostgreSQL (`FUNCTIONHOST_TEST_DATABASE_URL`).
@Suite struct LeaderboardSumBoundTests {
    static let bound = LeaderboardInput.maxValue

    /// Writes several statistics of one entity in one request with the master key.
    static func put(_ boards: Leaderboards, _ entity: String, _ values: [(String, Double)]) async throws -> [JSONValue] {
        let body = JSONValue.array(values.map { ["statisticName": .string($0.0), "statisticValue": .double($0.1)] })
        return try await boards.updateStatistics(.entity, id: entity, body, overwrite: false, caller: LeaderboardFixture.master)
    }

    @Test func aSumIsRefusedPastTwoToTheFiftyThird() async throws {
        try await LeaderboardFixture.run { fixture in
            let boards = try await fixture.leaderboards()
            try await boards.make("total", strategy: "sum")
            #expect(try await boards.put("total", "a", Self.bound - 9) == .int(Int64(Self.bound) - 9))
            #expect(try await boards.put("total", "a", 5) == .int(Int64(Self.bound) - 4))
            let refusal = await #expect(throws: LeaderboardError.self) { try await boards.put("total", "a", 5) }
            #expect(refusal?.kind == .badRequest && refusal?.code == 1, "400 {code: 1}")
            #expect(try await boards.all("total").map(\.1) == [Self.bound - 4], "the refused write left the sum as it was")
            #expect(try await boards.put("total", "a", 4) == .int(Int64(Self.bound)), "up to the bound itself is kept")
            // Downwards the same.
            #expect(try await boards.put("total", "b", -Self.bound) == .int(-Int64(Self.bound)))
            await #expect(throws: LeaderboardError.self) { try await boards.put("total", "b", -1) }
            #expect(try await boards.put("total", "b", 1) == .int(1 - Int64(Self.bound)))
        }
    }

    @Test func aRefusedSumWritesNoneOfItsRequest() async throws {
        try await LeaderboardFixture.run { fixture in
            let boards = try await fixture.leaderboards()
            try await boards.make("total", strategy: "sum")
            try await boards.make("coins", strategy: "sum")
            try await boards.make("latest", strategy: "last")
            try await boards.put("total", "a", Self.bound - 1)
            await #expect(throws: LeaderboardError.self) {
                try await Self.put(boards, "a", [("latest", 3), ("coins", 7), ("total", 2)])
            }
            #expect(try await boards.all("latest").isEmpty, "the last-value statistic of the refused request wasn't written")
            #expect(try await boards.all("coins").isEmpty, "nor the other sum")
            #expect(try await boards.all("total").map(\.1) == [Self.bound - 1])
            let results = try await Self.put(boards, "a", [("latest", 3), ("coins", 7), ("total", 1)])
            #expect(results.map { $0["statisticValue"] } == [3, 7, .int(Int64(Self.bound))])
        }
    }

    @Test func concurrentSumsNeverPassTheBoundNorHalfWriteARequest() async throws {
        try await LeaderboardFixture.run { fixture in
            let hosts = [try await fixture.leaderboards(), try await fixture.leaderboards()]
            try await hosts[0].make("plays", strategy: "sum")
            try await hosts[0].make("total", strategy: "sum")
            try await hosts[0].put("total", "a", Self.bound - 5)
            // Each request adds 1 to both; `total` has room for five of them.
            let refused = Atomic<Int>(0)
            try await LeaderboardConcurrencyTests.concurrently(24, hosts) { boards, _ in
                do {
                    _ = try await Self.put(boards, "a", [("plays", 1), ("total", 1)])
                } catch let error as LeaderboardError where error.kind == .badRequest {
                    refused.add(1, ordering: .relaxed)
                }
            }
            #expect(refused.load(ordering: .relaxed) == 19)
            #expect(try await hosts[1].all("total").map(\.1) == [Self.bound])
            #expect(try await hosts[1].all("plays").map(\.1) == [5], "a refused request's other sum was taken back")
        }
    }
}
