import DataAPI
import Foundation
import JSON
import Leaderboards
import Logging
import TestSupport
import Testing

/// A deleted user leaves every user board (current and last versions): his ranks and counts go,
/// on SQLite or PostgreSQL (`FUNCTIONHOST_TEST_DATABASE_URL`). The data service announces the
/// delete to `DeletedUserStatistics`, as the host wires it.
@Suite struct LeaderboardDeletedUserTests {
    /// Writes `value` on `board` as the user `caller` is.
    static func put(_ boards: Leaderboards, _ board: String, _ value: Double, as caller: Caller) async throws {
        _ = try await boards.updateStatistics(
            .user, id: "self", [["statisticName": .string(board), "statisticValue": .double(value)]], overwrite: false, caller: caller)
    }

    /// The user ids a board ranks, in rank order, and its count.
    static func ranked(_ boards: Leaderboards, _ board: String, version: Int? = nil) async throws -> ([String], Int?) {
        var options = RankOptions()
        options.count = true
        options.version = version
        let page = try await boards.rankings(board, options: options, caller: LeaderboardFixture.client)
        return (page.results.compactMap { $0["user"]?["objectId"]?.stringValue }, page.count)
    }

    @Test func aDeletedUserLeavesEveryBoard() async throws {
        try await LeaderboardFixture.run { fixture in
            var data = try await fixture.data()
            let logger = Logger(label: "test.leaderboards")
            data.listeners = [DeletedUserStatistics(leaderboards: Leaderboards(data: data, logger: logger))]
            let boards = try await fixture.leaderboards(data: data)
            try await boards.make("score", memberType: "_User")
            try await boards.make("coins", memberType: "_User", strategy: "sum")
            try await boards.make("stars", memberType: "_Entity")
            var users: [Caller] = []
            for name in ["ann", "ben", "cat", "dan"] { users.append(try await fixture.user(name, data: data)) }
            let ids = users.compactMap(\.userId)
            // Version 0 of `score`, kept readable after the reset, then version 1; coins once.
            for (index, user) in users.enumerated() { try await Self.put(boards, "score", Double(10 + index), as: user) }
            _ = try await boards.reset("score", caller: LeaderboardFixture.master)
            for (index, user) in users.enumerated() {
                try await Self.put(boards, "score", Double(20 + index), as: user)
                try await Self.put(boards, "coins", Double(index + 1), as: user)
            }
            // An entity named as a user's id is no user: it stays.
            try await boards.put("stars", ids[0], 1)
            // Deleted one by one and several at once (a multi-object delete).
            try await data.delete("_User", id: ids[3], caller: LeaderboardFixture.master)
            _ = try await data.deleteAll("_User", ids: [ids[1], ids[2]], caller: LeaderboardFixture.master)
            #expect(try await Self.ranked(boards, "score") == ([ids[0]], 1))
            #expect(try await Self.ranked(boards, "score", version: 0) == ([ids[0]], 1), "the last version forgets him too")
            #expect(try await Self.ranked(boards, "coins") == ([ids[0]], 1))
            #expect(try await boards.statistics(.user, id: ids[1], names: nil, caller: LeaderboardFixture.client).isEmpty)
            var around = RankOptions()
            around.limit = 3
            #expect(try await boards.rankings("score", around: ids[2], options: around, caller: LeaderboardFixture.client).results.isEmpty)
            try await data.delete("_User", id: ids[0], caller: LeaderboardFixture.master)
            #expect(try await Self.ranked(boards, "score") == ([], 0))
            #expect(try await boards.all("stars").map(\.0) == [ids[0]], "entity boards aren't users'")
            // His statistics can't be written again: he is no user.
            let refused = await #expect(throws: LeaderboardError.self) {
                _ = try await boards.updateStatistics(
                    .user, id: ids[0], [["statisticName": "score", "statisticValue": 1]], overwrite: false,
                    caller: LeaderboardFixture.master)
            }
            #expect(refused?.code == 211)
        }
    }
}
