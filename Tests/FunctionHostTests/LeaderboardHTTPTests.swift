import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import TestSupport
import Testing

/// The leaderboard REST API end to end, as the JS SDK's suite (`test/leaderboard.js`) and
/// LeanCloud's REST guide call it.
@Suite struct LeaderboardHTTPTests {
    static let boards = "/1.1/leaderboard/leaderboards"

    /// Creates the SDK suite's two boards with the master key.
    static func makeBoards(_ api: API) async throws {
        for (name, interval) in [("score_board", "week"), ("score_board_2", "never")] {
            let reply = try await api.post(
                boards, headers: Headers.master,
                ["statisticName": .string(name), "updateStrategy": "better", "order": "ascending", "versionChangeInterval": .string(interval)])
            #expect(reply.status == .ok, "\(reply)")
        }
    }

    @Test func boardsAreCreatedReadChangedAndReset() async throws {
        try await TestServer.run { api in
            try await Self.makeBoards(api)
            let board = try await api.get(Self.boards + "/score_board")
            #expect(board.status == .ok, "anyone with the app key reads a board: \(board)")
            #expect(board["statisticName"] == "score_board" && board["version"] == 0 && board["order"] == "ascending")
            #expect(board["memberType"] == "_User" && board["updateStrategy"] == "better" && board["versionChangeInterval"] == "week")
            #expect(board["expiredAt"]?["__type"] == "Date" && board["activatedAt"]?["__type"] == "Date")
            #expect(isObjectId(board["objectId"]?.stringValue) || board["objectId"]?.stringValue?.isEmpty == false)
            expectError(try await api.put(Self.boards + "/score_board", ["versionChangeInterval": "never"]), code: 401, status: .unauthorized)
            let changed = try await api.put(Self.boards + "/score_board", headers: Headers.master, ["versionChangeInterval": "day"])
            #expect(changed["versionChangeInterval"] == "day", "\(changed)")
            let strategy = try await api.put(Self.boards + "/score_board", headers: Headers.master, ["updateStrategy": "last"])
            #expect(strategy["updateStrategy"] == "last")
            let reset = try await api.put(Self.boards + "/score_board/incrementVersion", headers: Headers.master, [:])
            #expect(reset["version"] == 1, "\(reset)")
            let archives = try await api.get(Self.boards + "/score_board/archives", headers: Headers.master)
            #expect(archives.results.map { $0["version"] } == [0], "\(archives)")
            #expect(archives.results.first?["deactivatedAt"]?["__type"] == "Date")
            #expect(try await api.delete(Self.boards + "/score_board", headers: Headers.master).status == .ok)
            expectError(try await api.get(Self.boards + "/score_board"), code: 404, status: .notFound)
        }
    }

    @Test func theSDKSuitesStatisticsAndRankings() async throws {
        try await TestServer.run { api in
            try await Self.makeBoards(api)
            let company = try await api.create("Company", ["name": "LeanCloud"])
            var users: [(id: String, session: HTTPFields)] = []
            for index in 0..<4 {
                let reply = try await api.post(
                    "/1.1/users",
                    ["username": .string("iamunique\(index)"), "password": "mypasswd", "company": ["__type": "Pointer", "className": "Company", "objectId": .string(company)]])
                users.append((try #require(reply.objectId), Headers.session(try #require(reply["sessionToken"]?.stringValue))))
            }
            for (index, user) in users.enumerated() {
                let reply = try await api.post(
                    "/1.1/leaderboard/users/\(user.id)/statistics", headers: user.session,
                    [["statisticName": "score_board", "statisticValue": .int(Int64(index))],
                     ["statisticName": "score_board_2", "statisticValue": .int(Int64(-index))]])
                #expect(reply.status == .ok, "\(reply)")
                #expect(reply.results.first?["statisticValue"] == .int(Int64(index)) && reply.results.first?["version"] == 0)
            }
            let current = users[2]
            let stats = try await api.get("/1.1/leaderboard/users/\(current.id)/statistics", headers: current.session)
            #expect(Set(stats.results.compactMap { $0["statisticName"]?.stringValue }) == ["score_board", "score_board_2"])
            #expect(stats.results.first { $0["statisticName"] == "score_board" }?["statisticValue"] == 2)
            let count = try await api.get(Self.boards + "/score_board/ranks?count=1&limit=0")
            #expect(count["count"] == 4 && count.results.isEmpty, "\(count)")
            let page = try await api.get(
                Self.boards + "/score_board/ranks?selectUserKeys=username,company&includeUser=company&includeStatistics=score_board_2")
            #expect(page.results.map { $0["rank"] } == [0, 1, 2, 3], "\(page)")
            let third = try #require(page.results.dropFirst(2).first)
            #expect(third["statisticValue"] == 2)
            #expect(third["user"]?["username"] == "iamunique2")
            #expect(third["user"]?["company"]?["name"] == "LeanCloud" && third["user"]?["company"]?["__type"] == "Object")
            #expect(third["user"]?["password"] == nil && third["user"]?["sessionToken"] == nil)
            #expect(third["statistics"]?.arrayValue?.first?["statisticName"] == "score_board_2")
            expectError(try await api.get(Self.boards + "/score_board/ranks?includeStatistics=fake"), code: 404, status: .notFound)
            let around = try await api.get(Self.boards + "/score_board/ranks/self?limit=3", headers: current.session)
            #expect(around.results.map { $0["rank"] } == [1, 2, 3], "\(around)")
            #expect(around.results[1]["user"]?["username"] == nil && around.results[1]["statisticValue"] == 2)
            let aroundOther = try await api.get(Self.boards + "/score_board/ranks/\(users[1].id)?limit=3", headers: current.session)
            #expect(aroundOther.results.map { $0["rank"] } == [0, 1, 2])
            // The REST guide's paths and names.
            let guide = try await api.get(Self.boards + "/user/score_board/ranks?startPosition=1&maxResultsCount=2&selectKeys=username")
            #expect(guide.results.map { $0["user"]?["username"] } == ["iamunique1", "iamunique2"], "\(guide)")
            let many = try await api.post("/1.1/leaderboard/users/statistics/score_board", ["ids": [.string(users[0].id), .string(users[3].id)]])
            #expect(many.results.count == 2)
            #expect(try await api.delete("/1.1/leaderboard/users/self/statistics?statistics=score_board", headers: current.session).status == .ok)
            #expect(try await api.get(Self.boards + "/score_board/ranks").results.count == 3)
            for board in ["score_board", "score_board_2"] {
                #expect(try await api.delete(Self.boards + "/\(board)", headers: Headers.master).status == .ok)
            }
        }
    }

    @Test func objectsAndEntitiesAreRankedWithTheMasterKey() async throws {
        try await TestServer.run { api in
            #expect(try await api.post(Self.boards, headers: Headers.master, ["statisticName": "weapons", "memberType": "Weapon"]).status == .ok)
            #expect(try await api.post(Self.boards, headers: Headers.master, ["statisticName": "cities", "memberType": "_Entity"]).status == .ok)
            let sword = try await api.create("Weapon", ["name": "sword"])
            let body: JSONValue = [["statisticName": "weapons", "statisticValue": 5]]
            expectError(try await api.post("/1.1/leaderboard/objects/\(sword)/statistics", body), code: 401, status: .unauthorized)
            let written = try await api.post("/1.1/leaderboard/objects/\(sword)/statistics", headers: Headers.master, body)
            #expect(written.results.first?["statisticValue"] == 5, "\(written)")
            expectError(
                try await api.post("/1.1/leaderboard/objects/nosuchobject/statistics", headers: Headers.master, body), code: 101,
                status: .notFound)
            let stats = try await api.get("/1.1/leaderboard/objects/\(sword)/statistics")
            #expect(stats.results.first?["object"]?["className"] == "Weapon")
            let ranks = try await api.get(Self.boards + "/object/weapons/ranks?selectKeys=name")
            #expect(ranks.results.first?["object"]?["name"] == "sword", "\(ranks)")
            let city = try await api.post(
                "/1.1/leaderboard/entities/Vimur/statistics?overwrite=1", headers: Headers.master,
                [["statisticName": "cities", "statisticValue": 91]])
            #expect(city.results.first?["statisticValue"] == 91)
            let around = try await api.get(Self.boards + "/entity/cities/ranks/Vimur")
            #expect(around.results.first?["entity"] == "Vimur" && around.results.first?["rank"] == 0)
            // A path naming the wrong kind of member is refused.
            expectError(try await api.get(Self.boards + "/user/cities/ranks"), code: 1, status: .badRequest)
        }
    }
}
