import DataAPI
import JSON
import LiveQuery
import Synchronization
import TestSupport
import Testing

/// What each committed write means to a subscription: create, update, enter, leave, delete and
/// login, with `updatedKeys`, matched by the one evaluator before and after the write.
@Suite struct HubEventTests {
    @Test func eachWriteGivesItsEventKind() async throws {
        try await HubFixture.run { f in
            let queryID = try await f.subscribe("Todo", where: ["state": "doing"])
            let sink = await f.connect()
            let todo = try await f.data.create("Todo", body: ["state": "doing", "title": "a"], caller: HubFixture.anyone)
            _ = try await f.data.update("Todo", id: todo.objectId, body: ["title": "b"], caller: HubFixture.anyone)
            _ = try await f.data.update("Todo", id: todo.objectId, body: ["state": "done"], caller: HubFixture.anyone)
            _ = try await f.data.update("Todo", id: todo.objectId, body: ["state": "doing", "title": "c"], caller: HubFixture.anyone)
            try await f.data.delete("Todo", id: todo.objectId, caller: HubFixture.anyone)
            // Never matching: nothing.
            _ = try await f.data.create("Todo", body: ["state": "done"], caller: HubFixture.anyone)
            let marker = try await f.data.create("Todo", body: ["state": "doing"], caller: HubFixture.anyone)

            var events: [JSONValue] = []
            for n in 1...6 { events.append(try #require(await sink.json(n), "event \(n) of \(sink.events)")) }
            #expect(events.map { $0["op"]?.stringValue } == ["create", "update", "leave", "enter", "delete", "create"])
            #expect(events.allSatisfy { $0["query_id"]?.stringValue == queryID })
            #expect(events.allSatisfy { $0["object"]?["className"] == "Todo" })
            #expect(events[0]["object"]?["objectId"]?.stringValue == todo.objectId)
            #expect(events[0]["updatedKeys"] == nil)
            #expect(events[1]["updatedKeys"] == ["title"])
            #expect(events[1]["object"]?["title"] == "b")
            #expect(events[2]["updatedKeys"] == ["state"])
            #expect(events[2]["object"]?["state"] == "done")
            #expect(events[3]["updatedKeys"] == ["state", "title"])
            #expect(events[4]["object"]?["objectId"]?.stringValue == todo.objectId)
            #expect(events[5]["object"]?["objectId"]?.stringValue == marker.objectId)
            #expect(sink.events.count == 6)
            #expect(f.hub.statistics.eventsDelivered == 6)
        }
    }

    @Test func theSameIdAndQueryGetTheSameQueryIdOnEveryHub() async throws {
        let query: JSONValue = ["className": "Todo", "where": ["$and": [["state": "doing"], ["n": ["$gt": 1]]]]]
        let reordered: JSONValue = ["where": ["$and": [["state": "doing"], ["n": ["$gt": 1]]]], "className": "Todo"]
        let ids = Mutex<[[String]]>([])
        try await HubFixture.run { f in
            let a = try await f.hub.subscribe(id: "livequery-a", query: query, caller: HubFixture.anyone)
            let again = try await f.hub.subscribe(id: "livequery-a", query: reordered, caller: HubFixture.anyone)
            let other = try await f.hub.subscribe(id: "livequery-b", query: query, caller: HubFixture.anyone)
            let narrower = try await f.hub.subscribe(
                id: "livequery-a", query: ["className": "Todo", "where": ["state": "doing"]], caller: HubFixture.anyone)
            #expect(a == again)
            #expect(a.json == ["id": "livequery-a", "query_id": .string(a.queryID)])
            #expect(other.queryID != a.queryID)
            #expect(narrower.queryID != a.queryID)
            // A re-subscribe replaces, it doesn't add.
            #expect(f.hub.statistics.subscriptions == 3)
            ids.withLock { $0.append([a.queryID, other.queryID]) }
        }
        // Another hub (a restart, another host) derives the same ids.
        try await HubFixture.run { f in
            let a = try await f.hub.subscribe(id: "livequery-a", query: query, caller: HubFixture.anyone)
            let other = try await f.hub.subscribe(id: "livequery-b", query: query, caller: HubFixture.anyone)
            ids.withLock { $0.append([a.queryID, other.queryID]) }
        }
        let both = ids.withLock { $0 }
        #expect(both.count == 2 && both[0] == both[1])
    }

    @Test func anUnsubscribedQueryHearsNothingMore() async throws {
        try await HubFixture.run { f in
            let todo = try await f.subscribe("Todo")
            let note = try await f.subscribe("Note")
            let sink = await f.connect()
            #expect(try f.hub.unsubscribe(id: "livequery-test", queryID: todo, caller: HubFixture.anyone, client: nil))
            #expect(try !f.hub.unsubscribe(id: "livequery-test", queryID: todo, caller: HubFixture.anyone, client: nil))
            _ = try await f.data.create("Todo", body: ["n": 1], caller: HubFixture.anyone)
            _ = try await f.data.create("Note", body: ["n": 2], caller: HubFixture.anyone)
            let first = try #require(await sink.json(1))
            #expect(first["query_id"]?.stringValue == note)
            #expect(sink.events.count == 1)
        }
    }

    @Test func aSubscriptionOutlivesItsConnectionForItsIdleLifetime() async throws {
        let clock = TestClock()
        var limits = LiveQueryLimits()
        limits.idleLifetime = .seconds(600)
        try await HubFixture.run(limits: limits, now: { clock.now }) { f in
            _ = try await f.subscribe("Todo")
            let sink = await f.connect()
            await f.hub.detach(sink, subscriptionID: "livequery-test")
            clock.advance(minutes: 5)
            // A reconnect within the lifetime finds the subscription.
            let again = await f.connect()
            _ = try await f.data.create("Todo", body: ["n": 1], caller: HubFixture.anyone)
            #expect(await again.json(1)?["op"] == "create")
            #expect(sink.events.isEmpty)
            await f.hub.detach(again, subscriptionID: "livequery-test")
            clock.advance(minutes: 8)
            // Subscribing again (as the SDKs do after a reconnect) counts as activity.
            _ = try await f.subscribe("Todo")
            clock.advance(minutes: 5)
            _ = await f.connect("livequery-probe")
            #expect(f.hub.statistics.subscriptions == 1)
            clock.advance(minutes: 11)
            // Past it, the id and its subscriptions are forgotten.
            let late = await f.connect()
            #expect(f.hub.statistics.subscriptions == 0)
            _ = try await f.subscribe("Note")
            _ = try await f.data.create("Todo", body: ["n": 2], caller: HubFixture.anyone)
            _ = try await f.data.create("Note", body: ["n": 3], caller: HubFixture.anyone)
            #expect(await late.json(1)?["object"]?["n"] == 3)
        }
    }

    @Test func theSubscribersOwnLoginIsHeardByItsUserSubscription() async throws {
        try await HubFixture.run { f in
            let ada = try await f.user("ada")
            let bob = try await f.user("bob")
            let adaId = try #require(ada.userId)
            let queryID = try await f.subscribe("_User", where: ["objectId": .string(adaId)], as: ada)
            // Bob subscribes to every user he may find (his own row: `_User` find is closed).
            _ = try await f.subscribe("_User", id: "livequery-bob", as: bob)
            let sink = await f.connect()
            let bobSink = await f.connect("livequery-bob")
            _ = try await f.accounts.logIn(["username": "bob", "password": "secret-1"])
            _ = try await f.accounts.logIn(["username": "ada", "password": "secret-1"])
            // The logins' own writes (failed-login counters cleared) are updates of the rows.
            let login = try #require(await sink.eventNamed(.login))
            let json = try JSONValue(parsing: Array(login.json.utf8))
            #expect(json["query_id"]?.stringValue == queryID)
            #expect(json["object"]?["username"] == "ada")
            #expect(json["object"]?["password"] == nil)
            #expect(json["object"]?["sessionToken"] == nil)
            _ = await bobSink.eventNamed(.login)
            #expect(!sink.events.contains { $0.json.contains("\"bob\"") })
            #expect(bobSink.events.filter { $0.operation == .login }.count == 1)
            #expect(!bobSink.events.contains { $0.json.contains("\"ada\"") })
        }
    }
}

extension RecordingSink {
    /// The first event with this operation, waiting for each event in turn (bounded).
    func eventNamed(_ operation: LiveEvent.Operation) async -> LiveEvent? {
        var n = 1
        while let event = await event(n, within: .seconds(20)) {
            if event.operation == operation { return event }
            n += 1
        }
        return nil
    }
}
