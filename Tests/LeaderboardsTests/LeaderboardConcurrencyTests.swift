import DataAPI
import Foundation
import JSON
import Leaderboards
import TestSupport
import Testing

/// Concurrent writes from two hosts (two engines on one PostgreSQL database; SQLite's one
/// engine otherwise): no write is lost and every rank is exact.
@Suite struct LeaderboardConcurrencyTests {
    /// Runs `count` writes at once, alternating between the two hosts.
    static func concurrently(
        _ count: Int, _ hosts: [Leaderboards], _ write: @escaping @Sendable (Leaderboards, Int) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count { group.addTask { try await write(hosts[index % hosts.count], index) } }
            try await group.waitForAll()
        }
    }

    @Test func sumLosesNoIncrement() async throws {
        try await LeaderboardFixture.run { fixture in
            let hosts = [try await fixture.leaderboards(), try await fixture.leaderboards()]
            try await hosts[0].make("total", strategy: "sum")
            // The first writes race to create the record too.
            try await Self.concurrently(40, hosts) { boards, _ in try await boards.put("total", "a", 1) }
            #expect(try await hosts[1].all("total").map(\.1) == [40])
        }
    }

    @Test func betterKeepsTheBestOfConcurrentWrites() async throws {
        try await LeaderboardFixture.run { fixture in
            let hosts = [try await fixture.leaderboards(), try await fixture.leaderboards()]
            try await hosts[0].make("best")
            try await Self.concurrently(30, hosts) { boards, index in try await boards.put("best", "a", Double((index * 7) % 30)) }
            let best = try await hosts[0].all("best")
            #expect(best.map(\.1) == [29], "\(best)")
        }
    }

    @Test func ranksAreExactAfterConcurrentWrites() async throws {
        try await LeaderboardFixture.run { fixture in
            let hosts = [try await fixture.leaderboards(), try await fixture.leaderboards()]
            try await hosts[0].make("score", strategy: "last")
            try await Self.concurrently(30, hosts) { boards, index in try await boards.put("score", "m\(index)", Double(index % 10)) }
            let all = try await hosts[1].all("score")
            #expect(all.count == 30)
            #expect(all.map(\.2) == Array(0..<30))
            #expect(all.map(\.1) == all.map(\.1).sorted(by: >), "ranked by value, highest first")
            var options = RankOptions()
            options.limit = 1
            for (member, _, rank) in all {
                let around = try await hosts[0].rankings("score", around: member, options: options, caller: LeaderboardFixture.client)
                #expect(around.results.first?["rank"]?.intValue == Int64(rank), "\(member)")
                #expect(around.results.first?["entity"]?.stringValue == member)
            }
        }
    }
}
