import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import TestSupport
import Testing

/// The follow graph against callers acting as someone else and against hostile input: each
/// refused with a clear `{code, error}`, no row written, never a 500.
@Suite struct FriendshipAttackTests {
    @Test func aUserFollowsAndUnfollowsAsHimselfOnly() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            let (carol, _) = try await FileFixture.signUp(api, "carol")
            // Mallory (bob) makes alice follow carol: refused, nothing written.
            expectError(
                try await api.post("/1.1/users/\(alice)/friendship/\(carol)", headers: bobSession, [:]), code: 119,
                status: .forbidden)
            // No session at all: 206.
            expectError(try await api.post("/1.1/users/\(alice)/friendship/\(carol)", headers: Headers.client, [:]), code: 206)
            #expect(try await api.get("/1.1/users/\(alice)/followees", headers: Headers.master).results.isEmpty)
            // Alice's real follow can't be undone by bob.
            #expect(try await api.post("/1.1/users/\(alice)/friendship/\(carol)", headers: aliceSession, [:]).status == .ok)
            expectError(
                try await api.delete("/1.1/users/\(alice)/friendship/\(carol)", headers: bobSession), code: 119, status: .forbidden)
            #expect(try await api.get("/1.1/users/\(carol)/followers", headers: Headers.master).results.count == 1)
            // Nor written, changed or deleted through /classes.
            let row = try #require(try await api.get("/1.1/users/\(carol)/followers").results.first?["objectId"]?.stringValue)
            expectError(try await api.put("/1.1/classes/_Follower/\(row)", headers: bobSession, ["follower": .string(bob)]), code: 119)
            expectError(try await api.delete("/1.1/classes/_Follower/\(row)", headers: aliceSession), code: 119)
            expectError(
                try await api.post(
                    "/1.1/classes/_Followee", headers: bobSession,
                    ["user": FriendshipTests.pointer(alice), "followee": FriendshipTests.pointer(bob)]), code: 119)
            #expect(try await api.get("/1.1/users/\(alice)/followees", headers: Headers.master).results.count == 1)
        }
    }

    @Test func badIdsAndAttributesAreClearErrors() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, _) = try await FileFixture.signUp(api, "bob")
            let long = String(repeating: "a", count: 65)
            expectError(try await api.post("/1.1/users/\(alice)/friendship/\(long)", headers: aliceSession, [:]), code: 104)
            expectError(try await api.post("/1.1/users/\(alice)/friendship/a%27b", headers: aliceSession, [:]), code: 104)
            expectError(try await api.post("/1.1/users/\(alice)/friendship/nobody", headers: aliceSession, [:]), code: 211)
            expectError(try await api.post("/1.1/users/\(alice)/friendship/\(alice)", headers: aliceSession, [:]), code: 1)
            for attributes: JSONValue in [
                ["user": FriendshipTests.pointer(bob)], ["followee": 1], ["ACL": [:]], ["__op": 1], ["bad name": 1],
                .object(Dictionary(uniqueKeysWithValues: (0...Friendships.maxAttributes).map { ("k\($0)", JSONValue.int(1)) })),
            ] {
                expectError(try await api.post("/1.1/users/\(alice)/friendship/\(bob)", headers: aliceSession, attributes), code: 105)
            }
            let notObject = try await api.send(.post, "/1.1/users/\(alice)/friendship/\(bob)", headers: aliceSession, body: "[1]")
            expectError(notObject, code: 107)
            expectError(try await api.get("/1.1/users/\(long)/followers"), code: 104)
            expectError(try await api.get("/1.1/users/\(alice)/followers?where=%7Bnot"), code: 107)
            #expect(try await api.get("/1.1/users/\(alice)/followees", headers: Headers.master).results.isEmpty)
        }
    }

    @Test func followerQueriesPassTheAuthorizationStep() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, _) = try await FileFixture.signUp(api, "bob")
            #expect(try await api.post("/1.1/users/\(alice)/friendship/\(bob)", headers: aliceSession, [:]).status == .ok)
            // A subquery into a class the caller may not read can't be smuggled through the where.
            let inbox = #"{"follower":{"$inQuery":{"className":"_StatusInbox","where":{}}}}"#
            let refused = try await api.get(
                "/1.1/users/\(bob)/followers?where=\(inbox.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)")
            expectError(refused, code: 119)
            // The include of the user answers only what the caller may see of it.
            let seen = try await api.get("/1.1/users/\(bob)/followers?include=follower")
            #expect(seen.results.first?["follower"]?["username"] == "alice", "\(seen)")
            #expect(seen.results.first?["follower"]?["sessionToken"] == nil)
        }
    }
}
