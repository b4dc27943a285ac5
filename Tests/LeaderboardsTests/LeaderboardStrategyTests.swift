import DataAPI
import Foundation
import JSON
import Leaderboards
import TestSupport
import Testing

/// The update strategies and ranks, on SQLite or PostgreSQL (`FUNCTIONHOST_TEST_DATABASE_URL`).
@Suite struct LeaderboardStrategyTests {
    @Test func betterKeepsTheBestByTheBoardsOrder() async throws {
        try await LeaderboardFixture.run { fixture in
            let boards = try await fixture.leaderboards()
            try await boards.make("high", order: "descending")
            try await boards.make("fast", order: "ascending")
            #expect(try await boards.put("high", "a", 10) == 10)
            #expect(try await boards.put("high", "a", 5) == 10, "a lower score doesn't replace a higher one")
            #expect(try await boards.put("high", "a", 12.5) == 12.5)
            #expect(try await boards.put("fast", "a", 10) == 10)
            #expect(try await boards.put("fast", "a", 11) == 10, "a slower time doesn't replace a faster one")
            #expect(try await boards.put("fast", "a", 9) == 9)
            #expect(try await boards.put("fast", "a", 20, overwrite: true) == 20, "overwrite writes as last")
        }
    }

    @Test func lastAndSum() async throws {
        try await LeaderboardFixture.run { fixture in
            let boards = try await fixture.leaderboards()
            try await boards.make("last", strategy: "last")
            try await boards.make("total", strategy: "sum")
            #expect(try await boards.put("last", "a", 10) == 10)
            #expect(try await boards.put("last", "a", 3) == 3)
            #expect(try await boards.put("total", "a", 10) == 10)
            #expect(try await boards.put("total", "a", -3) == 7)
            #expect(try await boards.put("total", "a", 0.5) == 7.5)
        }
    }

    @Test func ranksFollowTheOrderThenWhoReachedTheValueFirst() async throws {
        try await LeaderboardFixture.run { fixture in
            let boards = try await fixture.leaderboards()
            try await boards.make("score")
            for (entity, value) in [("c", 5.0), ("a", 7), ("b", 5), ("d", 1)] {
                try await boards.put("score", entity, value)
                fixture.set(fixture.now.addingTimeInterval(1))
            }
            let all = try await boards.all("score")
            #expect(all.map(\.0) == ["a", "c", "b", "d"], "c reached 5 before b")
            #expect(all.map(\.2) == [0, 1, 2, 3])
            // Around b (rank 2), three of them: ranks 1 to 3.
            var options = RankOptions()
            options.limit = 3
            let around = try await boards.rankings("score", around: "b", options: options, caller: LeaderboardFixture.client)
            #expect(around.results.map { $0["rank"]?.intValue } == [1, 2, 3])
            // Around the last one, the page is filled from above.
            let last = try await boards.rankings("score", around: "d", options: options, caller: LeaderboardFixture.client)
            #expect(last.results.map { $0["rank"]?.intValue } == [1, 2, 3])
            options.skip = 1
            options.limit = 2
            options.count = true
            let page = try await boards.rankings("score", options: options, caller: LeaderboardFixture.client)
            #expect(page.results.map { $0["entity"]?.stringValue } == ["c", "b"])
            #expect(page.results.map { $0["rank"]?.intValue } == [1, 2])
            #expect(page.count == 4)
            // A member with no statistic has no rankings around it.
            #expect(try await boards.rankings("score", around: "zz", options: options, caller: LeaderboardFixture.client).results.isEmpty)
        }
    }

    @Test func statisticsAreReadPerMemberAndDeleted() async throws {
        try await LeaderboardFixture.run { fixture in
            let boards = try await fixture.leaderboards()
            try await boards.make("one")
            try await boards.make("two")
            try await boards.put("one", "a", 1)
            try await boards.put("two", "a", 2)
            let all = try await boards.statistics(.entity, id: "a", names: nil, caller: LeaderboardFixture.client)
            #expect(Set(all.compactMap { $0["statisticName"]?.stringValue }) == ["one", "two"])
            #expect(all.allSatisfy { $0["entity"] == "a" && $0["version"] == 0 })
            let named = try await boards.statistics(.entity, id: "a", names: ["two", "missing"], caller: LeaderboardFixture.client)
            #expect(named.map { $0["statisticValue"] } == [2])
            let many = try await boards.statistics(.entity, of: "one", ids: ["ids": ["a", "b"]], caller: LeaderboardFixture.client)
            #expect(many.count == 1)
            try await boards.deleteStatistics(.entity, id: "a", names: ["one"], caller: LeaderboardFixture.master)
            #expect(try await boards.all("one").isEmpty)
            #expect(try await boards.all("two").count == 1)
        }
    }

    @Test func aDeletedBoardCreatedAgainStartsEmpty() async throws {
        try await LeaderboardFixture.run { fixture in
            let boards = try await fixture.leaderboards()
            try await boards.make("again")
            try await boards.put("again", "a", 1)
            try await boards.delete("again", caller: LeaderboardFixture.master)
            await #expect(throws: LeaderboardError.boardNotFound("again")) { try await boards.board("again", caller: LeaderboardFixture.client) }
            try await boards.make("again")
            #expect(try await boards.all("again").isEmpty)
            #expect(try await boards.statistics(.entity, id: "a", names: nil, caller: LeaderboardFixture.client).isEmpty)
        }
    }
}
