import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import TestSupport
import Testing

/// Statuses against callers acting as someone else, reading another's inbox, fanning out past
/// the bound, and hostile input: each refused with a clear `{code, error}`, nothing written,
/// never a 500.
@Suite struct StatusAttackTests {
    @Test func aUserReadsAndChangesHisOwnInboxOnly() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            _ = try await api.post("/1.1/statuses", headers: aliceSession, StatusTests.privately(from: alice, to: bob, "secret"))
            let bobs = StatusTests.query(bob, "&inboxType=private")
            for headers in [aliceSession, Headers.client] {
                let code: Int64 = headers == Headers.client ? 206 : 119
                expectError(try await api.get("/1.1/subscribe/statuses?\(bobs)", headers: headers), code: code)
                expectError(try await api.get("/1.1/subscribe/statuses/count?\(bobs)", headers: headers), code: code)
                expectError(
                    try await api.post(
                        "/1.1/subscribe/statuses/resetUnreadCount", headers: headers,
                        ["owner": StatusTests.pointer(bob), "inboxType": "private"]), code: code)
                expectError(try await api.delete("/1.1/subscribe/statuses/inbox?\(bobs)&messageId=1", headers: headers), code: code)
                // Through /batch too.
                let batch: JSONValue = [
                    "requests": [["method": "GET", "path": .string("/1.1/subscribe/statuses?\(bobs)")]]
                ]
                let batched = try await api.post("/1.1/batch", headers: headers, batch)
                #expect(batched.json?.arrayValue?.first?["error"]?["code"] == .int(code), "\(batched)")
            }
            // Nothing was read or removed: bob's inbox is as alice left it.
            #expect(try await StatusTests.counts(api, bob, bobSession, type: "private") == (1, 1))
            // The master key reads any inbox.
            let read = try await api.get("/1.1/subscribe/statuses?\(bobs)", headers: Headers.master)
            #expect(read.results.count == 1, "\(read)")
            // The inboxes themselves are no client's to query.
            expectError(try await api.get("/1.1/classes/_StatusInbox", headers: bobSession), code: 119)
            expectError(try await api.get("/1.1/classes/_StatusInboxMark", headers: bobSession), code: 119)
            let smuggled = #"{"source":{"$inQuery":{"className":"_StatusInboxMark","where":{}}}}"#
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            expectError(try await api.get("/1.1/subscribe/statuses?\(bobs)&where=\(smuggled)", headers: bobSession), code: 119)
        }
    }

    @Test func aUserSendsAsHimselfToHisOwnFollowersOnly() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            let (carol, carolSession) = try await FileFixture.signUp(api, "carol")
            _ = try await api.post("/1.1/users/\(carol)/friendship/\(alice)", headers: carolSession, [:])
            // Bob signs a status as alice: refused.
            expectError(
                try await api.post("/1.1/statuses", headers: bobSession, StatusTests.privately(from: alice, to: carol, "x")), code: 119)
            // Bob sends as himself to alice's followers: refused.
            var toAlices = StatusTests.toFollowers(of: alice, "spam")
            toAlices = .object((toAlices.objectValue ?? [:]).merging(["data": ["message": "spam"]]) { $1 })
            expectError(try await api.post("/1.1/statuses", headers: bobSession, toAlices), code: 119)
            // Nor through `_Followee`, the same graph the other way round (followee = alice lists
            // alice's followers); his own follows' rows only.
            let viaFollowee: JSONValue = [
                "query": ["className": "_Followee", "keys": "user", "where": ["followee": StatusTests.pointer(alice)]],
                "data": ["message": "spam"], "inboxType": "private",
            ]
            expectError(try await api.post("/1.1/statuses", headers: bobSession, viaFollowee), code: 119)
            let everyone: JSONValue = [
                "query": ["className": "_Followee", "keys": "followee"], "data": ["message": "spam"], "inboxType": "private",
            ]
            expectError(try await api.post("/1.1/statuses", headers: bobSession, everyone), code: 119)
            // No session: 206.
            expectError(try await api.post("/1.1/statuses", headers: Headers.client, StatusTests.toFollowers(of: alice, "x")), code: 206)
            #expect(try await StatusTests.counts(api, carol, carolSession) == (0, 0))
            // Bob deletes alice's status: refused; it stays.
            let sent = try #require(try await api.post("/1.1/statuses", headers: aliceSession, StatusTests.toFollowers(of: alice, "hi")).objectId)
            expectError(try await api.delete("/1.1/statuses/\(sent)", headers: bobSession), code: 119)
            expectError(try await api.delete("/1.1/classes/_Status/\(sent)", headers: bobSession), code: 119)
            expectError(try await api.put("/1.1/classes/_Status/\(sent)", headers: aliceSession, ["message": "edited"]), code: 119)
            #expect(try await StatusTests.counts(api, carol, carolSession) == (1, 1))
            _ = bob
        }
    }

    @Test func aStatusReachesItsBoundInPagesAndNoMore() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            _ = try await api.post("/1.1/users/\(bob)/friendship/\(alice)", headers: bobSession, [:])
            // More followers, rows the master key writes directly: users it makes (without a
            // password), or ids that are no user's (a status reaches users only).
            func addFollowers(_ range: Range<Int>, users: Bool = false) async throws {
                var ids = range.map { String(format: "fan%05d", $0) }
                if users {
                    // In batches of 50 at once: a user's create checks its unique fields, and one
                    // batch of hundreds passes the batch's time budget on a busy PostgreSQL.
                    let names = ids
                    let made = try await withThrowingTaskGroup(of: (Int, [String]).self) { group in
                        for start in stride(from: 0, to: names.count, by: 50) {
                            let accounts: [JSONValue] = names[start..<min(start + 50, names.count)].map { name -> JSONValue in
                                ["method": "POST", "path": "/1.1/classes/_User", "body": ["username": .string(name)]]
                            }
                            group.addTask {
                                let reply = try await api.post("/1.1/batch", headers: Headers.master, ["requests": .array(accounts)])
                                return (start, reply.json?.arrayValue?.compactMap { $0["success"]?["objectId"]?.stringValue } ?? [])
                            }
                        }
                        return try await group.reduce(into: [(Int, [String])]()) { $0.append($1) }
                    }
                    ids = made.sorted { $0.0 < $1.0 }.flatMap(\.1)
                    #expect(ids.count == range.count)
                }
                let rows: [JSONValue] = ids.map { id in
                    [
                        "method": "POST", "path": "/1.1/classes/_Follower",
                        "body": ["user": StatusTests.pointer(alice), "follower": StatusTests.pointer(id)],
                    ]
                }
                let made = try await api.post("/1.1/batch", headers: Headers.master, ["requests": .array(rows)])
                #expect(made.json?.arrayValue?.allSatisfy { $0["success"] != nil } == true)
            }
            func delivered() async throws -> JSONValue? {
                try await api.get("/1.1/classes/_StatusInbox?count=1&limit=0", headers: Headers.master)["count"]
            }
            // 450 followers: read in three pages, every one reached.
            try await addFollowers(0..<449, users: true)
            #expect(try await api.post("/1.1/statuses", headers: aliceSession, StatusTests.toFollowers(of: alice, "few")).status == .created)
            #expect(try await delivered() == 450)
            #expect(try await StatusTests.counts(api, bob, bobSession) == (1, 1))
            // 1001 followers: one past the bound, refused whole, before anything is written.
            try await addFollowers(449..<949)
            try await addFollowers(949..<1000)
            expectError(try await api.post("/1.1/statuses", headers: aliceSession, StatusTests.toFollowers(of: alice, "all")), code: 1)
            #expect(try await api.get("/1.1/classes/_Status", headers: Headers.master).results.count == 1)
            #expect(try await delivered() == 450)
            #expect(try await StatusTests.counts(api, bob, bobSession) == (1, 1))
        }
    }

    @Test func aStatusReachesOnlyUsersThatExist() async throws {
        try await TestServer.run { api in
            let ((alice, aliceSession), (bob, bobSession), (carol, _)) = try await StatusTests.followedByTwo(api)
            let (dave, _) = try await FileFixture.signUp(api, "dave")
            // Rows naming ids that are no user's (the master key writes any), and carol deleted.
            var rows: [JSONValue] = ["ghost1", "ghost2"].map { ghost -> JSONValue in
                ["method": "POST", "path": "/1.1/classes/_Follower", "body": ["user": StatusTests.pointer(alice), "follower": StatusTests.pointer(ghost)]]
            }
            rows += (0..<3).map { n -> JSONValue in
                ["method": "POST", "path": "/1.1/classes/_Follower", "body": ["user": StatusTests.pointer(dave), "follower": StatusTests.pointer("ghost\(n)")]]
            }
            rows += ["ghost1", "ghost2"].map { ghost -> JSONValue in ["method": "POST", "path": "/1.1/classes/Post", "body": ["author": StatusTests.pointer(ghost)]] }
            let made = try await api.post("/1.1/batch", headers: Headers.master, ["requests": .array(rows)])
            #expect(made.json?.arrayValue?.allSatisfy { $0["success"] != nil } == true, "\(made)")
            #expect(try await api.delete("/1.1/users/\(carol)", headers: Headers.master).status == .ok)
            func delivered() async throws -> [String] {
                let inboxes = try await api.get("/1.1/classes/_StatusInbox?limit=1000", headers: Headers.master)
                return inboxes.results.compactMap { $0["owner"]?.stringValue }.sorted()
            }
            // To alice's followers: bob alone gets an inbox row.
            #expect(try await api.post("/1.1/statuses", headers: aliceSession, StatusTests.toFollowers(of: alice, "hi")).status == .created)
            #expect(try await delivered() == [bob])
            #expect(try await StatusTests.counts(api, bob, bobSession) == (1, 1))
            // Rows naming no user at all: 211, nothing sent.
            let toGhosts: JSONValue = [
                "query": ["className": "_Follower", "keys": "follower", "where": ["user": StatusTests.pointer(dave)]],
                "data": ["message": "boo", "source": StatusTests.pointer(dave)],
            ]
            expectError(try await api.post("/1.1/statuses", headers: Headers.master, toGhosts), code: 211)
            let byAuthor: JSONValue = [
                "query": ["className": "Post", "keys": "author", "where": [:]], "data": ["message": "boo", "source": StatusTests.pointer(alice)],
                "inboxType": "news",
            ]
            expectError(try await api.post("/1.1/statuses", headers: Headers.master, byAuthor), code: 211)
            #expect(try await api.get("/1.1/classes/_Status", headers: Headers.master).results.count == 1)
            #expect(try await delivered() == [bob])
            // A query whose rows name nobody still sends to nobody (a user with no followers).
            let none: JSONValue = ["query": ["className": "_Follower", "keys": "follower", "where": ["user": StatusTests.pointer(bob)]], "data": ["message": "alone"]]
            #expect(try await api.post("/1.1/statuses", headers: bobSession, none).status == .created)
            #expect(try await delivered() == [bob])
        }
    }

    @Test func badInputIsAClearError() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            let query: JSONValue = ["className": "_User", "where": ["objectId": .string(bob)]]
            let refused: [(JSONValue, Int64)] = [
                (["query": query, "data": "text"], 1),
                (["data": ["message": "no query"]], 1),
                (["query": query, "data": [:], "inboxType": "a/b"], 1),
                (["query": query, "data": [:], "inboxType": .string(String(repeating: "t", count: 65))], 1),
                (["query": query, "data": ["inboxType": "private"]], 105),
                (["query": query, "data": ["messageId": 5]], 105),
                (["query": query, "data": ["objectId": "x"]], 105),
                (["query": query, "data": ["source": "not an id!"]], 104),
                (["query": ["where": [:]], "data": [:]], 1),
                (["query": ["className": "Post", "where": [:]], "data": [:]], 1),
                (["query": ["className": "_User", "where": ["objectId": "nobody"]], "data": [:]], 211),
                (["query": ["className": "_User", "where": "{bad"], "data": [:]], 107),
                (
                    [
                        "query": query,
                        "data": .object(Dictionary(uniqueKeysWithValues: (0...Statuses.maxDataFields).map { ("k\($0)", JSONValue.int(1)) })),
                    ], 105
                ),
            ]
            for (body, code) in refused {
                expectError(try await api.post("/1.1/statuses", headers: aliceSession, body), code: code)
            }
            #expect(try await api.get("/1.1/classes/_Status", headers: Headers.master).results.isEmpty)
            let mine = StatusTests.query(bob)
            expectError(try await api.get("/1.1/subscribe/statuses?\(mine)&sinceId=abc", headers: bobSession), code: 1)
            expectError(try await api.get("/1.1/subscribe/statuses?\(mine)&maxId=-1", headers: bobSession), code: 1)
            expectError(try await api.get("/1.1/subscribe/statuses?\(mine)&limit=5000", headers: bobSession), code: 1)
            expectError(try await api.get("/1.1/subscribe/statuses?owner=%7Bbad", headers: bobSession), code: 104)
            expectError(try await api.get("/1.1/subscribe/statuses?owner=a%27b", headers: bobSession), code: 104)
            expectError(try await api.delete("/1.1/subscribe/statuses/inbox?\(mine)", headers: bobSession), code: 1)
            expectError(try await api.delete("/1.1/statuses/a%27b", headers: aliceSession), code: 104)
            expectError(try await api.delete("/1.1/statuses/missing", headers: aliceSession), code: 101)
            let notObject = try await api.send(.post, "/1.1/statuses", headers: aliceSession, body: "[]")
            expectError(notObject, code: 107)
            // A body past the host's limit is refused before it is read whole.
            let huge: JSONValue = ["query": query, "data": ["message": .string(String(repeating: "x", count: 21 * 1024 * 1024))]]
            expectError(try await api.post("/1.1/statuses", headers: aliceSession, huge), code: 413, status: .contentTooLarge)
            #expect(try await api.get("/1.1/classes/_Status", headers: Headers.master).results.isEmpty)
            _ = alice
        }
    }

    @Test func openInboxesAreReadByAnyClientButChangedByTheOwnerOnly() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.openStatusInboxes = true }) { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, _) = try await FileFixture.signUp(api, "bob")
            _ = try await api.post("/1.1/statuses", headers: aliceSession, StatusTests.privately(from: alice, to: bob, "hi"))
            let bobs = StatusTests.query(bob, "&inboxType=private")
            // As LeanCloud's server: another user counts, reads and resets bob's inbox.
            #expect(try await StatusTests.counts(api, bob, aliceSession, type: "private") == (1, 1))
            #expect(try await api.get("/1.1/subscribe/statuses?\(bobs)", headers: aliceSession).results.count == 1)
            let reset = try await api.post(
                "/1.1/subscribe/statuses/resetUnreadCount", headers: aliceSession, ["owner": StatusTests.pointer(bob), "inboxType": "private"])
            #expect(reset.status == .ok, "\(reset)")
            // Removing a message stays bob's; sending still as oneself only.
            expectError(try await api.delete("/1.1/subscribe/statuses/inbox?\(bobs)&messageId=1", headers: aliceSession), code: 119)
            expectError(
                try await api.post("/1.1/statuses", headers: aliceSession, StatusTests.privately(from: bob, to: alice, "x")), code: 119)
            #expect(try await StatusTests.counts(api, bob, Headers.master, type: "private") == (1, 0))
        }
    }
}
