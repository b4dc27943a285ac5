import DataAPI
import Foundation
import JSON
import LiveQuery
import TestSupport
import Testing

/// Attack: one client (an address, or a signed-in user) filling the host's subscription cap by
/// changing subscription id every `subscriptionsPerID`, so every other client's subscribe is
/// refused until the subscriptions expire. Each client holds a bounded share; its count falls
/// as its subscriptions end.
@Suite struct HubClientBoundTests {
    static func limits(address: Int = 3, user: Int = 1_000) -> LiveQueryLimits {
        var limits = LiveQueryLimits()
        limits.subscriptionsPerID = 2
        limits.subscriptionsPerAddress = address
        limits.subscriptionsPerUser = user
        limits.idleLifetime = .seconds(600)
        return limits
    }

    static func subscribe(_ f: HubFixture, _ n: Int, id: String, client: String?, as caller: Caller = HubFixture.anyone) async throws -> String {
        try await f.hub.subscribe(id: id, query: ["className": "Todo", "where": ["n": .int(Int64(n))]], caller: caller, client: client).queryID
    }

    @Test func anAddressPastItsShareIsRefusedAcrossIdsAndOthersStillSubscribe() async throws {
        try await HubFixture.run(limits: Self.limits()) { f in
            let a = "203.0.113.1"
            _ = try await Self.subscribe(f, 0, id: "livequery-a1", client: a)
            let held = try await Self.subscribe(f, 1, id: "livequery-a1", client: a)
            // A fresh id does not give a fresh share.
            _ = try await Self.subscribe(f, 2, id: "livequery-a2", client: a)
            let refused = await dataError { _ = try await Self.subscribe(f, 3, id: "livequery-a3", client: a) }
            #expect(refused?.code == .tooManyRequests)
            #expect(f.hub.statistics.subscriptions == 3)
            #expect(f.hub.statistics.subscriptionIDs == 2, "nothing stored for the refused one")
            // A re-subscribe of a held query is no new one.
            _ = try await Self.subscribe(f, 1, id: "livequery-a1", client: a)
            // Another address, and the master key from the full one, still subscribe.
            _ = try await Self.subscribe(f, 0, id: "livequery-b1", client: "203.0.113.2")
            _ = try await Self.subscribe(f, 5, id: "livequery-m1", client: a, as: HubFixture.master)
            #expect(f.hub.subscriptionCount(ofAddress: a) == 3)
            // Unsubscribing gives the share back.
            #expect(try f.hub.unsubscribe(id: "livequery-a1", queryID: held, caller: HubFixture.anyone, client: a))
            #expect(f.hub.subscriptionCount(ofAddress: a) == 2)
            _ = try await Self.subscribe(f, 3, id: "livequery-a3", client: a)
        }
    }

    @Test func anIPv6ClientIsItsSlash64() async throws {
        try await HubFixture.run(limits: Self.limits(address: 2)) { f in
            _ = try await Self.subscribe(f, 0, id: "livequery-v1", client: "2001:db8:1:2::1")
            _ = try await Self.subscribe(f, 0, id: "livequery-v2", client: "2001:db8:1:2:ffff::9")
            let refused = await dataError { _ = try await Self.subscribe(f, 0, id: "livequery-v3", client: "2001:db8:1:2::77") }
            #expect(refused?.code == .tooManyRequests)
            // The next /64 is another client.
            _ = try await Self.subscribe(f, 0, id: "livequery-v4", client: "2001:db8:1:3::1")
            #expect(f.hub.subscriptionCount(ofAddress: "2001:db8:1:2::abcd") == 2)
        }
    }

    @Test func aUserPastItsShareIsRefusedFromAnyAddress() async throws {
        try await HubFixture.run(limits: Self.limits(address: 100, user: 2)) { f in
            let ada = try await f.user("ada")
            let bob = try await f.user("bob")
            _ = try await Self.subscribe(f, 0, id: "livequery-u1", client: "203.0.113.1", as: ada)
            _ = try await Self.subscribe(f, 1, id: "livequery-u2", client: "203.0.113.2", as: ada)
            let refused = await dataError { _ = try await Self.subscribe(f, 2, id: "livequery-u3", client: "203.0.113.3", as: ada) }
            #expect(refused?.code == .tooManyRequests)
            #expect(f.hub.subscriptionCount(ofAddress: "203.0.113.3") == 0)
            _ = try await Self.subscribe(f, 2, id: "livequery-u4", client: "203.0.113.3", as: bob)
            // Replacing ada's subscription with bob's (another user of the device) moves the
            // count: ada may subscribe once more.
            _ = try await Self.subscribe(f, 0, id: "livequery-u1", client: "203.0.113.1", as: bob)
            _ = try await Self.subscribe(f, 2, id: "livequery-u3", client: "203.0.113.3", as: ada)
            // Bob holds two now: a replace that would add a third to him is refused, and
            // leaves ada's subscription in place.
            let replace = await dataError { _ = try await Self.subscribe(f, 1, id: "livequery-u2", client: "203.0.113.2", as: bob) }
            #expect(replace?.code == .tooManyRequests)
            #expect(f.hub.statistics.subscriptions == 4)
        }
    }

    @Test func expiredSubscriptionsGiveTheShareBack() async throws {
        let clock = TestClock()
        try await HubFixture.run(limits: Self.limits(address: 2), now: { clock.now }) { f in
            let a = "203.0.113.1"
            _ = try await Self.subscribe(f, 0, id: "livequery-e1", client: a)
            _ = try await Self.subscribe(f, 1, id: "livequery-e1", client: a)
            #expect(await dataError { _ = try await Self.subscribe(f, 2, id: "livequery-e2", client: a) }?.code == .tooManyRequests)
            clock.advance(minutes: 11)
            // The idle id is forgotten at the next sweep, and its subscriptions with it.
            _ = try await Self.subscribe(f, 2, id: "livequery-e2", client: a)
            #expect(f.hub.subscriptionCount(ofAddress: a) == 1)
            #expect(f.hub.statistics.subscriptions == 1)
        }
    }
}
