import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import TestSupport
import Testing

/// The follow graph over HTTP as the SDKs use it: follow with attributes, the followee and
/// follower queries (with include), `followersAndFollowees`, unfollow.
@Suite struct FriendshipTests {
    static func pointer(_ id: String) -> JSONValue { ["__type": "Pointer", "className": "_User", "objectId": .string(id)] }

    @Test func followWithAttributesThenQueryBothSidesThenUnfollow() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, _) = try await FileFixture.signUp(api, "bob")
            let followed = try await api.post(
                "/1.1/users/\(alice)/friendship/\(bob)", headers: aliceSession,
                ["group": 1, "position": ["__type": "GeoPoint", "latitude": 0, "longitude": 0]])
            #expect(followed.status == .ok, "\(followed)")
            // followeeQuery: _Followee where user = alice, with the attributes and include.
            let whereGroup = #"{"user":{"__type":"Pointer","className":"_User","objectId":"\#(alice)"},"group":1}"#
            let followees = try await api.get(
                "/1.1/classes/_Followee?where=\(whereGroup.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&include=followee",
                headers: aliceSession)
            #expect(followees.results.count == 1, "\(followees)")
            #expect(followees.results.first?["followee"]?["username"] == "bob")
            #expect(followees.results.first?["position"]?["__type"] == "GeoPoint")
            // followerQuery: bob's followers, readable by anyone.
            let followers = try await api.get("/1.1/users/\(bob)/followers?include=follower")
            #expect(followers.results.map { $0["follower"]?["objectId"] } == [.string(alice)], "\(followers)")
            let both = try await api.get("/1.1/users/\(alice)/followersAndFollowees?include=follower,followee&count=1")
            #expect(both["followees"]?.arrayValue?.first?["followee"]?["objectId"] == .string(bob), "\(both)")
            #expect(both["followers"]?.arrayValue?.isEmpty == true)
            #expect(both["followees_count"] == 1)
            #expect(both["followers_count"] == 0)
            // Following twice is 137, as LeanCloud answers a duplicate follow.
            expectError(try await api.post("/1.1/users/\(alice)/friendship/\(bob)", headers: aliceSession, [:]), code: 137)
            let unfollowed = try await api.delete("/1.1/users/\(alice)/friendship/\(bob)", headers: aliceSession)
            #expect(unfollowed.status == .ok, "\(unfollowed)")
            #expect(try await api.get("/1.1/users/\(alice)/followees").results.isEmpty)
            #expect(try await api.get("/1.1/users/\(bob)/followers").results.isEmpty)
            // Unfollowing nobody is no error; following again works.
            #expect(try await api.delete("/1.1/users/\(alice)/friendship/\(bob)", headers: aliceSession).status == .ok)
            #expect(try await api.post("/1.1/users/\(alice)/friendship/\(bob)", headers: aliceSession, [:]).status == .ok)
        }
    }

    @Test func theMasterKeyFollowsForAnyone() async throws {
        try await TestServer.run { api in
            let (alice, _) = try await FileFixture.signUp(api, "alice")
            let (bob, _) = try await FileFixture.signUp(api, "bob")
            #expect(try await api.post("/1.1/users/\(alice)/friendship/\(bob)", headers: Headers.master, [:]).status == .ok)
            #expect(try await api.get("/1.1/users/\(alice)/followees").results.count == 1)
            #expect(try await api.delete("/1.1/users/\(alice)/friendship/\(bob)", headers: Headers.master).status == .ok)
            #expect(try await api.get("/1.1/users/\(alice)/followees").results.isEmpty)
        }
    }

    @Test func racingFollowsMakeOneRow() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, _) = try await FileFixture.signUp(api, "bob")
            let replies = try await withThrowingTaskGroup(of: Reply.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await api.post("/1.1/users/\(alice)/friendship/\(bob)", headers: aliceSession, [:]) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(replies.filter { $0.status == .ok }.count == 1, "\(replies)")
            for reply in replies where reply.status != .ok { expectError(reply, code: 137) }
            #expect(try await api.get("/1.1/users/\(alice)/followees", headers: Headers.master).results.count == 1)
            #expect(try await api.get("/1.1/users/\(bob)/followers", headers: Headers.master).results.count == 1)
        }
    }

    /// The follow graph's two sides as the master key reads them: (follower, followed) pairs
    /// from `_Followee` and from `_Follower`.
    static func sides(_ api: API) async throws -> (followees: [String], followers: [String]) {
        let followees = try await api.get("/1.1/classes/_Followee?limit=1000", headers: Headers.master).results.map {
            "\($0["user"]?["objectId"]?.stringValue ?? "?")>\($0["followee"]?["objectId"]?.stringValue ?? "?")"
        }
        let followers = try await api.get("/1.1/classes/_Follower?limit=1000", headers: Headers.master).results.map {
            "\($0["follower"]?["objectId"]?.stringValue ?? "?")>\($0["user"]?["objectId"]?.stringValue ?? "?")"
        }
        return (followees.sorted(), followers.sorted())
    }

    /// Follows and unfollows of the same pairs at once, many pairs together: each pair ends with
    /// both rows or neither, never one (on PostgreSQL, each request on its own connection).
    @Test func racingFollowsAndUnfollowsKeepBothSidesInStep() async throws {
        try await TestServer.run { api in
            let accounts: [JSONValue] = (0..<6).map { n -> JSONValue in
                ["method": "POST", "path": "/1.1/classes/_User", "body": ["username": .string("racer\(n)")]]
            }
            let made = try await api.post("/1.1/batch", headers: Headers.master, ["requests": .array(accounts)])
            let users = made.json?.arrayValue?.compactMap { $0["success"]?["objectId"]?.stringValue } ?? []
            try #require(users.count == 6, "\(made)")
            let pairs = users.flatMap { user in users.filter { $0 != user }.map { (user, $0) } }
            for round in 0..<3 {
                let replies = try await withThrowingTaskGroup(of: (Bool, Reply).self) { group in
                    for (user, target) in pairs {
                        for step in 0..<4 {
                            let path = "/1.1/users/\(user)/friendship/\(target)"
                            // Follow first or unfollow first, pair by pair and round by round.
                            let follows = (step + round) % 2 == 0
                            group.addTask {
                                if follows { return (true, try await api.post(path, headers: Headers.master, [:])) }
                                return (false, try await api.delete(path, headers: Headers.master))
                            }
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for (follows, reply) in replies where reply.status != .ok {
                    #expect(follows, "an unfollow always succeeds: \(reply)")
                    expectError(reply, code: 137)
                }
                let (followees, followers) = try await Self.sides(api)
                #expect(followees == followers, "round \(round): the two sides differ")
                #expect(Set(followees).count == followees.count, "one row per follow")
            }
            // Two follows of each pair at once: one row on each side.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (user, target) in pairs {
                    for _ in 0..<2 {
                        group.addTask { _ = try await api.post("/1.1/users/\(user)/friendship/\(target)", headers: Headers.master, [:]) }
                    }
                }
                try await group.waitForAll()
            }
            let (followees, followers) = try await Self.sides(api)
            #expect(followees.count == pairs.count && followees == followers)
        }
    }
}
