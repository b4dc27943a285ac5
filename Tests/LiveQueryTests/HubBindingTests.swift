import DataAPI
import Foundation
import JSON
import LiveQuery
import TestSupport
import Testing

/// Attack: the subscription id is all a realtime login names, and ids leak (logs, a shared
/// device, a proxy). A connection logged in with someone's id from another address receives
/// none of that someone's events, and may not take its query over; the device itself, from a
/// new address after a reconnect, subscribes again and receives as before.
@Suite struct HubBindingTests {
    static let victimAddress = "203.0.113.1"
    static let attackerAddress = "198.51.100.7"

    @Test func anotherAddressWithTheIdReceivesNothing() async throws {
        try await HubFixture.run { f in
            let ada = try await f.user("ada")
            let mallory = try await f.user("mallory")
            let query: JSONValue = ["className": "Todo", "where": [:]]
            let queryID = try await f.hub.subscribe(id: "livequery-ada", query: query, caller: ada, client: Self.victimAddress).queryID
            let victim = RecordingSink(client: Self.victimAddress)
            let attacker = RecordingSink(client: Self.attackerAddress)
            #expect(await f.hub.attach(victim, subscriptionID: "livequery-ada"))
            #expect(await f.hub.attach(attacker, subscriptionID: "livequery-ada"))
            // The same query from elsewhere as someone else would take the subscription over.
            let takeover = await dataError {
                _ = try await f.hub.subscribe(id: "livequery-ada", query: query, caller: mallory, client: Self.attackerAddress)
            }
            #expect(takeover?.code == .operationForbidden)
            // A query of its own under the id is its own: it acts as the attacker and goes to
            // the attacker's address only.
            let own = try await f.hub.subscribe(
                id: "livequery-ada", query: ["className": "Note", "where": [:]], caller: mallory, client: Self.attackerAddress
            ).queryID
            let first = try await f.data.create("Todo", body: ["n": 1], caller: HubFixture.anyone)
            _ = try await f.data.create("Note", body: ["n": 2], caller: HubFixture.anyone)
            #expect(await victim.json(1)?["object"]?["objectId"]?.stringValue == first.objectId)
            #expect(await attacker.json(1)?["query_id"]?.stringValue == own)
            // The Todo's delivery ended before the Note's began: the attacker's only event is
            // its own query's, the victim's only its own.
            #expect(attacker.events.count == 1)
            #expect(victim.events.map(\.queryID) == [queryID])
        }
    }

    /// Attack: query ids are derived from the id and the query, so whoever learnt an id can
    /// name the query id too. Ending the subscription is for its own user, or its device.
    @Test func onlyItsOwnerOrItsAddressMayUnsubscribe() async throws {
        try await HubFixture.run { f in
            let ada = try await f.user("ada")
            let mallory = try await f.user("mallory")
            let query: JSONValue = ["className": "Todo", "where": [:]]
            let queryID = try await f.hub.subscribe(id: "livequery-ada", query: query, caller: ada, client: Self.victimAddress).queryID
            for caller in [mallory, HubFixture.anyone] {
                let refused = await dataError {
                    _ = try f.hub.unsubscribe(id: "livequery-ada", queryID: queryID, caller: caller, client: Self.attackerAddress)
                }
                #expect(refused?.code == .operationForbidden)
            }
            #expect(f.hub.statistics.subscriptions == 1)
            // Her own session from anywhere, or anyone from her address (the SDK without its
            // session header), ends it.
            #expect(try f.hub.unsubscribe(id: "livequery-ada", queryID: queryID, caller: HubFixture.anyone, client: Self.victimAddress))
            #expect(f.hub.statistics.subscriptions == 0)
            _ = try await f.hub.subscribe(id: "livequery-ada", query: query, caller: ada, client: Self.victimAddress)
            #expect(try f.hub.unsubscribe(id: "livequery-ada", queryID: queryID, caller: ada, client: Self.attackerAddress))
        }
    }

    @Test func theDeviceFromANewAddressSubscribesAgainAndReceives() async throws {
        try await HubFixture.run { f in
            let ada = try await f.user("ada")
            let query: JSONValue = ["className": "Todo", "where": [:]]
            let queryID = try await f.hub.subscribe(id: "livequery-ada", query: query, caller: ada, client: "2001:db8:1:2::1").queryID
            // Another address of the same IPv6 /64 is the same client.
            let sameNetwork = RecordingSink(client: "2001:db8:1:2::99")
            #expect(await f.hub.attach(sameNetwork, subscriptionID: "livequery-ada"))
            _ = try await f.data.create("Todo", body: ["n": 1], caller: HubFixture.anyone)
            #expect(await sameNetwork.json(1)?["query_id"]?.stringValue == queryID)
            await f.hub.detach(sameNetwork, subscriptionID: "livequery-ada")
            // Wi-Fi to mobile data: the SDK logs in again, then subscribes again, from the new
            // address; the query id is the same, and the events follow it.
            let moved = RecordingSink(client: "198.51.100.20")
            #expect(await f.hub.attach(moved, subscriptionID: "livequery-ada"))
            #expect(try await f.hub.subscribe(id: "livequery-ada", query: query, caller: ada, client: "198.51.100.20").queryID == queryID)
            let second = try await f.data.create("Todo", body: ["n": 2], caller: HubFixture.anyone)
            #expect(await moved.json(1)?["object"]?["objectId"]?.stringValue == second.objectId)
            #expect(f.hub.statistics.subscriptions == 1)
        }
    }
}
