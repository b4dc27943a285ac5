import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import TestSupport
import Testing

/// The leaderboard routes against callers without the master key, against users acting for
/// others and against hostile input: each refused with a clear `{code, error}`, nothing written,
/// never a 500.
@Suite struct LeaderboardAttackTests {
    static let boards = LeaderboardHTTPTests.boards

    @Test func clientsDontManageBoards() async throws {
        try await TestServer.run { api in
            #expect(try await api.post(Self.boards, headers: Headers.master, ["statisticName": "world"]).status == .ok)
            let (_, session) = try await FileFixture.signUp(api, "mallory")
            for headers in [Headers.client, session] {
                expectError(try await api.post(Self.boards, headers: headers, ["statisticName": "mine"]), code: 401, status: .unauthorized)
                expectError(try await api.put(Self.boards + "/world", headers: headers, ["updateStrategy": "sum"]), code: 401)
                expectError(try await api.put(Self.boards + "/world/incrementVersion", headers: headers, [:]), code: 401)
                expectError(try await api.delete(Self.boards + "/world", headers: headers), code: 401)
                expectError(try await api.get(Self.boards + "/world/archives", headers: headers), code: 401)
            }
            expectError(try await api.get(Self.boards + "/world", headers: Headers.none), code: 401, status: .unauthorized)
            let board = try await api.get(Self.boards + "/world")
            #expect(board["version"] == 0 && board["updateStrategy"] == "better", "nothing changed: \(board)")
        }
    }

    @Test func aUserCantWriteAnotherUsersStatistics() async throws {
        try await TestServer.run { api in
            #expect(try await api.post(Self.boards, headers: Headers.master, ["statisticName": "world"]).status == .ok)
            let (victim, victimSession) = try await FileFixture.signUp(api, "victim")
            let (_, session) = try await FileFixture.signUp(api, "mallory")
            let body: JSONValue = [["statisticName": "world", "statisticValue": 1_000_000]]
            expectError(try await api.post("/1.1/leaderboard/users/\(victim)/statistics", headers: session, body), code: 403, status: .forbidden)
            expectError(try await api.post("/1.1/leaderboard/users/\(victim)/statistics", body), code: 401, status: .unauthorized)
            expectError(try await api.post("/1.1/leaderboard/users/self/statistics", body), code: 401, status: .unauthorized)
            expectError(
                try await api.post("/1.1/leaderboard/users/self/statistics?overwrite=1", headers: session, body), code: 401,
                status: .unauthorized)
            expectError(try await api.post("/1.1/leaderboard/entities/e/statistics", headers: session, body), code: 401)
            #expect(try await api.post("/1.1/leaderboard/users/self/statistics", headers: victimSession, [["statisticName": "world", "statisticValue": 3]]).status == .ok)
            expectError(try await api.delete("/1.1/leaderboard/users/\(victim)/statistics?statistics=world", headers: session), code: 403)
            let ranks = try await api.get(Self.boards + "/world/ranks")
            #expect(ranks.results.map { $0["statisticValue"] } == [3], "only the victim's own write: \(ranks)")
        }
    }

    @Test func rankingsDontShowOtherUsersPrivateFields() async throws {
        try await TestServer.run { api in
            #expect(try await api.post(Self.boards, headers: Headers.master, ["statisticName": "world"]).status == .ok)
            let reply = try await api.post(
                "/1.1/users", ["username": "victim", "password": "secret", "email": "victim@example.com", "mobilePhoneNumber": "18600001111"])
            let session = Headers.session(try #require(reply["sessionToken"]?.stringValue))
            #expect(try await api.post("/1.1/leaderboard/users/self/statistics", headers: session, [["statisticName": "world", "statisticValue": 1]]).status == .ok)
            let (_, other) = try await FileFixture.signUp(api, "mallory")
            let path = Self.boards + "/world/ranks?selectUserKeys=username,email,mobilePhoneNumber"
            for headers in [Headers.client, other] {
                let user = try await api.get(path, headers: headers).results.first?["user"]
                #expect(user?["username"] == "victim", "\(String(describing: user))")
                #expect(user?["email"] == nil && user?["mobilePhoneNumber"] == nil, "\(String(describing: user))")
            }
            #expect(try await api.get(path, headers: session).results.first?["user"]?["email"] == "victim@example.com", "his own")
            #expect(try await api.get(path, headers: Headers.master).results.first?["user"]?["email"] == "victim@example.com")
        }
    }

    @Test func onlyTheMasterKeyWritesWhenTheAppSaysSo() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.leaderboards.masterKeyOnlyStatistics = true }) { api in
            #expect(try await api.post(Self.boards, headers: Headers.master, ["statisticName": "world"]).status == .ok)
            let (id, session) = try await FileFixture.signUp(api, "player")
            let body: JSONValue = [["statisticName": "world", "statisticValue": 5]]
            expectError(try await api.post("/1.1/leaderboard/users/self/statistics", headers: session, body), code: 403, status: .forbidden)
            #expect(try await api.post("/1.1/leaderboard/users/\(id)/statistics", headers: Headers.master, body).status == .ok)
        }
    }

    @Test func theDataAPIDoesntReachTheBoardsRecords() async throws {
        try await TestServer.run { api in
            #expect(try await api.post(Self.boards, headers: Headers.master, ["statisticName": "world", "memberType": "_Entity"]).status == .ok)
            #expect(try await api.post("/1.1/leaderboard/entities/e/statistics", headers: Headers.master, [["statisticName": "world", "statisticValue": 1]]).status == .ok)
            for className in ["_Leaderboard", "_LeaderboardStatistic", "_LeaderboardArchive"] {
                for headers in [Headers.client, Headers.master] {
                    expectError(try await api.get("/1.1/classes/\(className)", headers: headers), code: 119, status: .forbidden)
                    expectError(try await api.post("/1.1/classes/\(className)", headers: headers, ["value": 1e9]), code: 119, status: .forbidden)
                }
            }
        }
    }

    @Test func hostileInputIsRefusedClearly() async throws {
        try await TestServer.run { api in
            #expect(try await api.post(Self.boards, headers: Headers.master, ["statisticName": "world", "memberType": "_Entity"]).status == .ok)
            let long = String(repeating: "a", count: 5000)
            for body: JSONValue in [
                [:], ["statisticName": "../x"], ["statisticName": .string(long)], ["statisticName": "ok", "memberType": "_User\u{0}"],
                ["statisticName": "ok", "order": ["$gt": 1]], ["statisticName": "world"],
            ] {
                let reply = try await api.post(Self.boards, headers: Headers.master, body)
                expectError(reply, code: reply["code"]?.intValue ?? -1, status: .badRequest)
            }
            for body: JSONValue in [
                [["statisticName": "world", "statisticValue": "NaN"]], [["statisticName": "world", "statisticValue": 1e308]],
                [["statisticName": "world", "statisticValue": ["__op": "Increment", "amount": 1]]], ["not": "an array"],
                .array(Array(repeating: [["statisticName": "world", "statisticValue": 1]], count: 60)),
            ] {
                expectError(try await api.post("/1.1/leaderboard/entities/e/statistics", headers: Headers.master, body), code: 1, status: .badRequest)
            }
            for query in ["limit=100000", "skip=-5", "version=x", "selectKeys=password", "includeStatistics=" + long, "version=7"] {
                let reply = try await api.get(Self.boards + "/world/ranks?" + query)
                expectError(reply, code: reply["code"]?.intValue ?? -1)
            }
            expectError(try await api.get(Self.boards + "/" + long), code: 1, status: .badRequest)
            expectError(try await api.get("/1.1/leaderboard/entities/" + long + "/statistics"), code: 1, status: .badRequest)
            let batch = try await api.post(
                "/1.1/leaderboard/entities/statistics/world", ["ids": .array(Array(repeating: "e", count: 201))])
            expectError(batch, code: 1, status: .badRequest)
            #expect(try await api.get(Self.boards + "/world/ranks").results.isEmpty, "nothing was written")
        }
    }

    /// A deleted user leaves the boards whichever way he is deleted: by himself over REST, in a
    /// `/batch` with the master key, by cloud code's data API.
    @Test func aDeletedUserLeavesTheBoards() async throws {
        var functions = FunctionRegistry()
        functions.define("dropUser") { request -> JSONValue in
            try await request.data.asMaster.withoutHooks.delete("_User", id: request.params["id"]?.stringValue ?? "")
            return true
        }
        try await TestServer.run(functions: functions) { api in
            let made = try await api.post(
                "/1.1/leaderboard/leaderboards", headers: Headers.master, ["statisticName": "score", "versionChangeInterval": "never"])
            #expect(made.status == .ok, "\(made)")
            var users: [(id: String, session: HTTPFields)] = []
            for (index, name) in ["ann", "ben", "cat", "dan"].enumerated() {
                let user = try await FileFixture.signUp(api, name)
                let wrote = try await api.post(
                    "/1.1/leaderboard/users/self/statistics", headers: user.session,
                    [["statisticName": "score", "statisticValue": .int(Int64(index))]])
                #expect(wrote.status == .ok, "\(wrote)")
                users.append(user)
            }
            #expect(try await api.delete("/1.1/users/\(users[3].id)", headers: users[3].session).status == .ok)
            let batch: JSONValue = ["requests": [["method": "DELETE", "path": .string("/1.1/classes/_User/\(users[2].id)")]]]
            let batched = try await api.post("/1.1/batch", headers: Headers.master, batch)
            #expect(batched.json?.arrayValue?.first?["success"] != nil, "\(batched)")
            #expect(try await api.post("/1.1/functions/dropUser", ["id": .string(users[1].id)]).status == .ok)
            let ranks = try await api.get("/1.1/leaderboard/leaderboards/score/ranks?count=1")
            #expect(ranks.results.compactMap { $0["user"]?["objectId"]?.stringValue } == [users[0].id], "\(ranks)")
            #expect(ranks["count"] == 1)
            #expect(ranks.results.first?["rank"] == 0)
            #expect(try await api.get("/1.1/leaderboard/leaderboards/score/ranks/\(users[2].id)").results.isEmpty)
        }
    }
}
