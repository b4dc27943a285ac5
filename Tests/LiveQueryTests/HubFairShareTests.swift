import DataAPI
import Foundation
import JSON
import LiveQuery
import TestSupport
import Testing

/// Attack: a hundred addresses at their share each fill the host's subscription cap, and
/// nobody else subscribes until their subscriptions expire. Subscriptions no connection ever
/// logged in to expire after `unclaimedLifetime` (the SDKs log in before they subscribe, so
/// theirs are claimed at once), and those of the app key alone take at most
/// `subscriptionsWithoutUser` of the host: signed-in users keep room.
@Suite struct HubFairShareTests {
    static func subscribe(_ f: HubFixture, _ n: Int, id: String, client: String, as caller: Caller = HubFixture.anyone) async throws {
        _ = try await f.hub.subscribe(id: id, query: ["className": "Todo", "where": ["n": .int(Int64(n))]], caller: caller, client: client)
    }

    @Test func unclaimedSubscriptionsExpireSoonAndClaimedOnesStay() async throws {
        let clock = TestClock()
        try await HubFixture.run(now: { clock.now }) { f in
            // Subscribed over REST, never listened to.
            try await Self.subscribe(f, 1, id: "livequery-unclaimed", client: "203.0.113.1")
            // The SDKs' order: log in, then subscribe.
            let device = RecordingSink(client: "203.0.113.2")
            #expect(await f.hub.attach(device, subscriptionID: "livequery-device"))
            try await Self.subscribe(f, 2, id: "livequery-device", client: "203.0.113.2")
            // Subscribed first, logged in within the lifetime: claimed too.
            try await Self.subscribe(f, 3, id: "livequery-late", client: "203.0.113.3")
            clock.advance(minutes: 5)
            let late = RecordingSink(client: "203.0.113.3")
            #expect(await f.hub.attach(late, subscriptionID: "livequery-late"))
            await f.hub.detach(late, subscriptionID: "livequery-late")
            await f.hub.detach(device, subscriptionID: "livequery-device")
            clock.advance(minutes: 6)
            // The next sweep forgets the unclaimed id only (`idleLifetime` is an hour).
            #expect(await f.hub.attach(RecordingSink(), subscriptionID: "livequery-probe"))
            #expect(f.hub.statistics.subscriptions == 2)
            #expect(f.hub.subscriptionCount(ofAddress: "203.0.113.1") == 0)
            // The device reconnects: it logs in and subscribes again, and hears writes.
            let again = RecordingSink(client: "203.0.113.2")
            #expect(await f.hub.attach(again, subscriptionID: "livequery-device"))
            try await Self.subscribe(f, 2, id: "livequery-device", client: "203.0.113.2")
            _ = try await f.data.create("Todo", body: ["n": 2], caller: HubFixture.anyone)
            #expect(await again.json(1)?["op"] == "create")
        }
    }

    @Test func appKeySubscriptionsTakeAtMostTheirShareOfTheHost() async throws {
        var limits = LiveQueryLimits()
        limits.subscriptions = 6
        limits.subscriptionsWithoutUser = 3
        try await HubFixture.run(limits: limits) { f in
            for n in 0..<3 { try await Self.subscribe(f, n, id: "livequery-a\(n)", client: "203.0.113.\(n + 1)") }
            // A fourth address's app-key subscription is past the share.
            let refused = await dataError { try await Self.subscribe(f, 3, id: "livequery-a3", client: "203.0.113.4") }
            #expect(refused?.code == .temporarilyUnavailable)
            #expect(f.hub.statistics.subscriptions == 3)
            // Signed-in users, and the master key, still have room.
            let ada = try await f.user("ada")
            try await Self.subscribe(f, 4, id: "livequery-ada", client: "203.0.113.4", as: ada)
            try await Self.subscribe(f, 5, id: "livequery-master", client: "203.0.113.4", as: HubFixture.master)
            // An app-key subscription ended gives its room back.
            let first = try await f.hub.subscribe(
                id: "livequery-a0", query: ["className": "Todo", "where": ["n": 0]], caller: HubFixture.anyone, client: "203.0.113.1")
            #expect(try f.hub.unsubscribe(id: "livequery-a0", queryID: first.queryID, caller: HubFixture.anyone, client: "203.0.113.1"))
            try await Self.subscribe(f, 3, id: "livequery-a3", client: "203.0.113.4")
            #expect(f.hub.statistics.subscriptions == 5)
        }
    }
}
