import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import TestSupport
import Testing

/// Statuses over HTTP as the SDKs send them: to followers, to one user, to a query; inboxes
/// with their message ids, paging, unread counts and resets; deletes that leave every inbox.
@Suite struct StatusTests {
    static func pointer(_ id: String) -> JSONValue { FriendshipTests.pointer(id) }

    /// The body `AV.Status.sendStatusToFollowers` sends.
    static func toFollowers(of sender: String, _ message: String, inboxType: String = "default") -> JSONValue {
        [
            "query": ["className": "_Follower", "keys": "follower", "where": ["user": pointer(sender)]],
            "data": ["message": .string(message), "image": "url", "source": pointer(sender)], "inboxType": .string(inboxType),
        ]
    }

    /// The body `AV.Status.sendPrivateStatus` sends.
    static func privately(from sender: String, to target: String, _ message: String) -> JSONValue {
        [
            "query": ["className": "_User", "where": ["objectId": .string(target)]],
            "data": ["message": .string(message), "source": pointer(sender)], "inboxType": "private",
        ]
    }

    static func query(_ owner: String, _ extra: String = "") -> String {
        let encoded = #"{"__type":"Pointer","className":"_User","objectId":"\#(owner)"}"#
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return "owner=\(encoded)\(extra)"
    }

    static func counts(_ api: API, _ owner: String, _ session: HTTPFields, type: String = "default") async throws -> (JSONValue?, JSONValue?) {
        let reply = try await api.get("/1.1/subscribe/statuses/count?\(query(owner, "&inboxType=\(type)"))", headers: session)
        #expect(reply.status == .ok, "\(reply)")
        return (reply["total"], reply["unread"])
    }

    /// Alice, and bob and carol who follow her.
    static func followedByTwo(_ api: API) async throws -> (
        (id: String, session: HTTPFields), (id: String, session: HTTPFields), (id: String, session: HTTPFields)
    ) {
        let alice = try await FileFixture.signUp(api, "alice")
        let bob = try await FileFixture.signUp(api, "bob")
        let carol = try await FileFixture.signUp(api, "carol")
        for follower in [bob, carol] {
            let followed = try await api.post("/1.1/users/\(follower.id)/friendship/\(alice.id)", headers: follower.session, [:])
            #expect(followed.status == .ok, "\(followed)")
        }
        return (alice, bob, carol)
    }

    @Test func aStatusReachesTheSendersFollowers() async throws {
        try await TestServer.run { api in
            let ((alice, aliceSession), (bob, bobSession), (carol, carolSession)) = try await Self.followedByTwo(api)
            let sent = try await api.post("/1.1/statuses", headers: aliceSession, Self.toFollowers(of: alice, "hello"))
            #expect(sent.status == .created, "\(sent)")
            let statusId = try #require(sent.objectId)
            #expect(try await Self.counts(api, bob, bobSession) == (1, 1))
            let inbox = try await api.get("/1.1/subscribe/statuses?\(Self.query(bob))&include=source", headers: bobSession)
            #expect(inbox.results.count == 1, "\(inbox)")
            let status = try #require(inbox.results.first)
            #expect(status["objectId"] == .string(statusId))
            #expect(status["message"] == "hello")
            #expect(status["inboxType"] == "default")
            #expect(status["source"]?["username"] == "alice")
            #expect(status["messageId"]?.intValue ?? 0 > 0)
            // Reading the inbox read it; carol hasn't read hers; alice sent to others, not herself.
            #expect(try await Self.counts(api, bob, bobSession) == (1, 0))
            #expect(try await Self.counts(api, carol, carolSession) == (1, 1))
            #expect(try await Self.counts(api, alice, aliceSession) == (0, 0))
            // The timeline's statuses are public: statusQuery finds alice's.
            let published = try await api.get("/1.1/classes/_Status", headers: carolSession)
            #expect(published.results.map { $0["objectId"] } == [.string(statusId)])
        }
    }

    @Test func aPrivateStatusReachesOneUserAndOnlyHeReadsIt() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            let (_, carolSession) = try await FileFixture.signUp(api, "carol")
            let sent = try await api.post("/1.1/statuses", headers: aliceSession, Self.privately(from: alice, to: bob, "secret"))
            let statusId = try #require(sent.objectId, "\(sent)")
            #expect(try await Self.counts(api, bob, bobSession, type: "private") == (1, 1))
            #expect(try await Self.counts(api, bob, bobSession) == (0, 0))
            let inbox = try await api.get("/1.1/subscribe/statuses?\(Self.query(bob, "&inboxType=private"))", headers: bobSession)
            #expect(inbox.results.map { $0["message"] } == ["secret"], "\(inbox)")
            #expect(try await api.get("/1.1/statuses/\(statusId)", headers: bobSession)["message"] == "secret")
            #expect(try await api.get("/1.1/statuses/\(statusId)", headers: aliceSession)["message"] == "secret")
            // Carol sees neither the status nor its listing.
            #expect(try await api.get("/1.1/statuses/\(statusId)", headers: carolSession).json == [:])
            #expect(try await api.get("/1.1/classes/_Status", headers: carolSession).results.isEmpty)
        }
    }

    @Test func inboxesPageBySinceIdMaxIdAndLimit() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            for n in 1...4 {
                let sent = try await api.post("/1.1/statuses", headers: aliceSession, Self.privately(from: alice, to: bob, "m\(n)"))
                #expect(sent.status == .created, "\(sent)")
            }
            func page(_ extra: String) async throws -> [JSONValue] {
                try await api.get("/1.1/subscribe/statuses?\(Self.query(bob, "&inboxType=private" + extra))", headers: bobSession).results
            }
            let newest = try await page("&limit=2")
            #expect(newest.map { $0["message"] } == ["m4", "m3"])
            let ids = newest.compactMap { $0["messageId"]?.intValue }
            let older = try await page("&maxId=\(ids[1] - 1)")
            #expect(older.map { $0["message"] } == ["m2", "m1"])
            let since = try await page("&sinceId=\(ids[1])")
            #expect(since.map { $0["message"] } == ["m4"])
            // A where on the statuses narrows the page.
            let one = #"{"message":"m2"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(try await page("&where=\(one)").map { $0["message"] } == ["m2"])
        }
    }

    @Test func resetUnreadCountMarksTheInboxRead() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            for n in 1...2 { _ = try await api.post("/1.1/statuses", headers: aliceSession, Self.privately(from: alice, to: bob, "m\(n)")) }
            #expect(try await Self.counts(api, bob, bobSession, type: "private") == (2, 2))
            // The JS SDK sends the owner and type in the body.
            let reset = try await api.post(
                "/1.1/subscribe/statuses/resetUnreadCount", headers: bobSession, ["owner": Self.pointer(bob), "inboxType": "private"])
            #expect(reset.status == .ok, "\(reset)")
            #expect(try await Self.counts(api, bob, bobSession, type: "private") == (2, 0))
            _ = try await api.post("/1.1/statuses", headers: aliceSession, Self.privately(from: alice, to: bob, "m3"))
            #expect(try await Self.counts(api, bob, bobSession, type: "private") == (3, 1))
        }
    }

    @Test func deletingAStatusTakesItOutOfEveryInbox() async throws {
        try await TestServer.run { api in
            let ((alice, aliceSession), (bob, bobSession), (carol, carolSession)) = try await Self.followedByTwo(api)
            let first = try #require(try await api.post("/1.1/statuses", headers: aliceSession, Self.toFollowers(of: alice, "one")).objectId)
            _ = try await api.post("/1.1/statuses", headers: aliceSession, Self.toFollowers(of: alice, "two"))
            // Bob removes "two" from his own inbox only.
            let bobs = try await api.get("/1.1/subscribe/statuses?\(Self.query(bob))", headers: bobSession).results
            let two = try #require(bobs.first { $0["message"] == "two" }?["messageId"]?.intValue)
            let removed = try await api.delete("/1.1/subscribe/statuses/inbox?\(Self.query(bob, "&messageId=\(two)"))", headers: bobSession)
            #expect(removed.status == .ok, "\(removed)")
            #expect(try await Self.counts(api, bob, bobSession).0 == 1)
            #expect(try await Self.counts(api, carol, carolSession).0 == 2)
            // Alice deletes "one": gone from both inboxes and from _Status.
            #expect(try await api.delete("/1.1/statuses/\(first)", headers: aliceSession).status == .ok)
            #expect(try await Self.counts(api, bob, bobSession).0 == 0)
            let carols = try await api.get("/1.1/subscribe/statuses?\(Self.query(carol))", headers: carolSession).results
            #expect(carols.map { $0["message"] } == ["two"])
            #expect(try await api.get("/1.1/statuses/\(first)", headers: Headers.master).json == [:])
        }
    }

    @Test func customInboxesAndQueriesAndTheBatchedInboxQuery() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            _ = try await api.put("/1.1/users/\(bob)", headers: bobSession, ["gender": "female"])
            // The master key sends a broadcast into a custom inbox to the users a query finds.
            let broadcast: JSONValue = [
                "query": ["className": "_User", "where": ["gender": "female"]],
                "data": ["message": "news", "source": Self.pointer(alice)], "inboxType": "system",
            ]
            #expect(try await api.post("/1.1/statuses", headers: Headers.master, broadcast).status == .created)
            #expect(try await Self.counts(api, bob, bobSession, type: "system") == (1, 1))
            // A client's query of _User finds only its own user (the app didn't open _User).
            let mine: JSONValue = [
                "query": ["className": "_User", "where": ["gender": "female"]], "data": ["message": "hi"], "inboxType": "system",
            ]
            #expect(try await api.post("/1.1/statuses", headers: aliceSession, mine).status == .created)
            #expect(try await Self.counts(api, bob, bobSession, type: "system") == (1, 1))
            // The JS SDK sends a long inbox query through /batch.
            let batch: JSONValue = [
                "requests": [[
                    "method": "GET", "path": "/1.1/subscribe/statuses",
                    "params": ["owner": Self.pointer(bob), "inboxType": "system", "where": ["message": "news"]],
                ]]
            ]
            let batched = try await api.post("/1.1/batch", headers: bobSession, batch)
            let results = batched.json?.arrayValue?.first?["success"]?["results"]?.arrayValue
            #expect(results?.map { $0["message"] } == ["news"], "\(batched)")
        }
    }

    @Test func thePythonSDKsShapesAreServed() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            // `User.follow` posts a JSON null body.
            let followed = try await api.send(.post, "/1.1/users/\(bob)/friendship/\(alice)", headers: bobSession, body: "null")
            #expect(followed.status == .ok, "\(followed)")
            // `Status.send_to_followers`: the source beside data, the query's where as dumped.
            let toFollowers: JSONValue = [
                "inboxType": "default", "data": ["message": "py"], "source": Self.pointer(alice),
                "query": ["className": "_Follower", "keys": "follower", "where": ["user": Self.pointer(alice)]],
            ]
            #expect(try await api.post("/1.1/statuses", headers: aliceSession, toFollowers).status == .created)
            // `send_private_status` queries class `User`.
            let privately: JSONValue = [
                "inboxType": "private", "data": ["message": "dm"], "source": Self.pointer(alice),
                "query": ["className": "User", "where": ["objectId": .string(bob)]],
            ]
            #expect(try await api.post("/1.1/statuses", headers: aliceSession, privately).status == .created)
            #expect(try await Self.counts(api, bob, bobSession) == (1, 1))
            #expect(try await Self.counts(api, bob, bobSession, type: "private") == (1, 1))
            // A source beside data naming another user is refused as in data.
            var forged = privately.objectValue ?? [:]
            forged["source"] = Self.pointer(bob)
            expectError(try await api.post("/1.1/statuses", headers: aliceSession, .object(forged)), code: 119)
        }
    }

    @Test func racingSendsGetDistinctGrowingMessageIds() async throws {
        try await TestServer.run { api in
            let (alice, aliceSession) = try await FileFixture.signUp(api, "alice")
            let (bob, bobSession) = try await FileFixture.signUp(api, "bob")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for n in 0..<8 {
                    group.addTask {
                        let sent = try await api.post("/1.1/statuses", headers: aliceSession, Self.privately(from: alice, to: bob, "m\(n)"))
                        #expect(sent.status == .created, "\(sent)")
                    }
                }
                try await group.waitForAll()
            }
            let inbox = try await api.get("/1.1/subscribe/statuses?\(Self.query(bob, "&inboxType=private"))", headers: bobSession)
            let ids = inbox.results.compactMap { $0["messageId"]?.intValue }
            #expect(ids.count == 8, "\(inbox)")
            #expect(Set(ids).count == 8)
            #expect(ids == ids.sorted(by: >))
        }
    }
}
