import DataAPI
import JSON
import LiveQuery
import Synchronization
import TestSupport
import Testing

/// A feed only this host follows is told only the writes its subscriptions may care about, so
/// that writes of other classes cost no read of the object before it changes.
@Suite struct PublisherInterestTests {
    @Test func aPublisherWithAnInterestAnnouncesOnlyThoseClasses() async {
        let feed = LocalChangeFeed()
        let stream = feed.changes()
        let publisher = ChangeFeedPublisher(feed: feed, interest: { $0 == "Todo" })
        for className in ["Note", "Todo"] {
            await publisher.didWrite(.create, ObjectEvent(className: className, object: ["objectId": "x"], caller: .master))
        }
        await publisher.didLogIn(ObjectEvent(className: "_User", object: ["objectId": "u"], caller: .master))
        feed.finish()
        var heard: [String] = []
        for await change in stream { heard.append(change.className) }
        #expect(heard == ["Todo"])
        #expect(publisher.hears("Todo") && !publisher.hears("Note"))
        #expect(ChangeFeedPublisher(feed: feed).hears("Note"))
    }

    @Test func theHubWatchesTheClassesItsSubscriptionsName() async throws {
        try await HubFixture.run { f in
            #expect(!f.hub.watches("Todo") && !f.hub.watches("_Role") && !f.hub.watches("_User"))
            let todo = try await f.subscribe("Todo")
            let again = try await f.subscribe("Todo", id: "livequery-other")
            #expect(f.hub.watches("Todo") && !f.hub.watches("Note"))
            // Roles and users change who subscribers are: watched while any subscription exists.
            #expect(f.hub.watches("_Role") && f.hub.watches("_User"))
            _ = try f.hub.unsubscribe(id: "livequery-test", queryID: todo, caller: HubFixture.anyone, client: nil)
            #expect(f.hub.watches("Todo"))
            _ = try f.hub.unsubscribe(id: "livequery-other", queryID: again, caller: HubFixture.anyone, client: nil)
            #expect(!f.hub.watches("Todo") && !f.hub.watches("_Role"))
        }
    }

    @Test func aDeletedUsersSubscriptionsEnd() async throws {
        try await HubFixture.run { f in
            let ada = try await f.user("ada")
            _ = try await f.subscribe("Todo", id: "livequery-ada", as: ada)
            _ = try await f.subscribe("Todo", id: "livequery-anon")
            let sink = await f.connect("livequery-anon")
            try await f.data.delete("_User", id: try #require(ada.userId), caller: HubFixture.master)
            _ = try await f.data.create("Todo", body: ["n": 1], caller: HubFixture.anyone)
            #expect(await sink.json(1)?["op"] == "create")
            #expect(f.hub.statistics.subscriptions == 1)
        }
    }
}
