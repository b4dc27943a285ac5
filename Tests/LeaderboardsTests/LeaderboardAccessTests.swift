import DataAPI
import Foundation
import JSON
import Leaderboards
import TestSupport
import Testing

/// Who may do what: the master key manages boards and anyone's statistics; a user writes his
/// own only (and not when only the master key may); every input bounded.
@Suite struct LeaderboardAccessTests {
    static let client = LeaderboardFixture.client

    @Test func onlyTheMasterKeyManagesBoards() async throws {
        try await LeaderboardFixture.run { fixture in
            let data = try await fixture.data()
            let boards = try await fixture.leaderboards(data: data)
            let user = try await fixture.user("u", data: data)
            try await boards.make("world", memberType: "_User")
            for caller in [Self.client, user] {
                await #expect(throws: LeaderboardError.masterKeyRequired) {
                    try await boards.create(["statisticName": "mine"], caller: caller)
                }
                await #expect(throws: LeaderboardError.masterKeyRequired) {
                    try await boards.update("world", ["updateStrategy": "last"], caller: caller)
                }
                await #expect(throws: LeaderboardError.masterKeyRequired) { try await boards.reset("world", caller: caller) }
                await #expect(throws: LeaderboardError.masterKeyRequired) { try await boards.delete("world", caller: caller) }
                await #expect(throws: LeaderboardError.masterKeyRequired) {
                    try await boards.archives("world", skip: 0, limit: 10, caller: caller)
                }
            }
            let board = try await boards.board("world", caller: Self.client)
            #expect(board.version == 0 && board.updateStrategy == .better, "nothing changed")
        }
    }

    @Test func aUserWritesHisOwnStatisticsOnly() async throws {
        try await LeaderboardFixture.run { fixture in
            let data = try await fixture.data()
            let boards = try await fixture.leaderboards(data: data)
            let alice = try await fixture.user("alice", data: data)
            let bob = try await fixture.user("bob", data: data)
            try await boards.make("world", memberType: "_User")
            try await boards.make("cities")
            let score: JSONValue = [["statisticName": "world", "statisticValue": 10]]
            let written = try await boards.updateStatistics(.user, id: "self", score, overwrite: false, caller: alice)
            #expect(written.first?["statisticValue"] == 10)
            await #expect(throws: LeaderboardError.self) {
                try await boards.updateStatistics(.user, id: alice.userId!, score, overwrite: false, caller: bob)
            }
            await #expect(throws: LeaderboardError.self) {
                try await boards.deleteStatistics(.user, id: alice.userId!, names: ["world"], caller: bob)
            }
            await #expect(throws: LeaderboardError.masterKeyRequired) {
                try await boards.updateStatistics(.user, id: alice.userId!, score, overwrite: false, caller: Self.client)
            }
            await #expect(throws: LeaderboardError.masterKeyRequired) {
                try await boards.updateStatistics(.user, id: "self", score, overwrite: true, caller: alice)
            }
            await #expect(throws: LeaderboardError.masterKeyRequired) {
                try await boards.updateStatistics(
                    .entity, id: "x", [["statisticName": "cities", "statisticValue": 1]], overwrite: false, caller: alice)
            }
            // A user's statistic on a board of entities is refused, as a statistic for nobody is.
            await #expect(throws: LeaderboardError.self) {
                try await boards.updateStatistics(
                    .user, id: "self", [["statisticName": "cities", "statisticValue": 1]], overwrite: false, caller: alice)
            }
            await #expect(throws: LeaderboardError.self) {
                try await boards.updateStatistics(.user, id: "nosuchuser", score, overwrite: false, caller: LeaderboardFixture.master)
            }
            let all = try await boards.all("world")
            #expect(all.map(\.0) == [alice.userId!] && all.map(\.1) == [10], "only alice's own write landed")
            // Only the master key, when the app says so.
            let strict = try await fixture.leaderboards(data: data, masterKeyOnly: true)
            await #expect(throws: LeaderboardError.self) {
                try await strict.updateStatistics(.user, id: "self", score, overwrite: false, caller: alice)
            }
            _ = try await strict.updateStatistics(.user, id: alice.userId!, score, overwrite: true, caller: LeaderboardFixture.master)
        }
    }

    @Test func inputIsBounded() async throws {
        try await LeaderboardFixture.run { fixture in
            let boards = try await fixture.leaderboards()
            try await boards.make("world")
            let master = LeaderboardFixture.master
            for body: [String: JSONValue] in [
                [:], ["statisticName": 5], ["statisticName": "_x"], ["statisticName": "a b"], ["statisticName": "a/../b"],
                ["statisticName": .string(String(repeating: "a", count: 65))], ["statisticName": "ok", "order": "up"],
                ["statisticName": "ok", "memberType": "_Session"], ["statisticName": "ok", "versionChangeInterval": "hour"],
                ["statisticName": "world"],
            ] {
                await #expect(throws: LeaderboardError.self, "\(body)") { try await boards.create(body, caller: master) }
            }
            for body: JSONValue in [
                [:], [], ["x"], [["statisticName": "world"]], [["statisticName": "world", "statisticValue": "1"]],
                [["statisticName": "world", "statisticValue": true]], [["statisticName": "world", "statisticValue": 1e300]],
                [["statisticName": "world", "statisticValue": 1], ["statisticName": "world", "statisticValue": 2]],
                [["statisticName": "nosuch", "statisticValue": 1]],
                .array(Array(repeating: ["statisticName": "world", "statisticValue": 1], count: 51)),
            ] {
                await #expect(throws: LeaderboardError.self, "\(body)") {
                    try await boards.updateStatistics(.entity, id: "e", body, overwrite: false, caller: master)
                }
            }
            for entity in ["", "_e", "a-b", String(repeating: "e", count: 129)] {
                await #expect(throws: LeaderboardError.self) {
                    try await boards.updateStatistics(
                        .entity, id: entity, [["statisticName": "world", "statisticValue": 1]], overwrite: false, caller: master)
                }
            }
            for parameters in [
                ["limit": "201"], ["limit": "-1"], ["skip": "x"], ["skip": "100001"], ["version": "-2"],
                ["selectUserKeys": "password"], ["selectUserKeys": "sessionToken"], ["includeStatistics": "a,_b"],
                ["selectKeys": (0..<30).map { "k\($0)" }.joined(separator: ",")],
            ] {
                #expect(throws: LeaderboardError.self, "\(parameters)") { try RankOptions(parameters: parameters) }
            }
            var options = RankOptions()
            options.includeStatistics = ["fake"]
            await #expect(throws: LeaderboardError.boardNotFound("fake")) {
                try await boards.rankings("world", options: options, caller: Self.client)
            }
            #expect(try await boards.all("world").isEmpty, "nothing was written")
        }
    }
}
