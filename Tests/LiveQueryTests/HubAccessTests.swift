import DataAPI
import JSON
import LiveQuery
import TestSupport
import Testing

/// Attack tests: each event is the subscriber's view, through the one authorization step, at
/// delivery time. An event for an object the subscriber may not read never arrives; each check
/// ends with a marker write the subscriber may see, awaited, so "nothing arrived" is decided by
/// the order of delivery, not by waiting.
@Suite struct HubAccessTests {
    private static func acl(_ entries: [String: JSONValue]) -> JSONValue { .object(entries) }

    @Test func anObjectTheSubscriberMayNotReadNeverArrives() async throws {
        try await HubFixture.run { f in
            let ada = try await f.user("ada")
            let bob = try await f.user("bob")
            let adaId = try #require(ada.userId)
            let bobId = try #require(bob.userId)
            _ = try await f.subscribe("Doc", as: ada)
            let sink = await f.connect()
            // Bob's private doc: created, updated, deleted; Ada hears none of it.
            let secret = try await f.data.create(
                "Doc", body: ["text": "bob's", "ACL": [bobId: ["read": true, "write": true]]], caller: bob)
            _ = try await f.data.update("Doc", id: secret.objectId, body: ["text": "still bob's"], caller: bob)
            try await f.data.delete("Doc", id: secret.objectId, caller: bob)
            // A doc Ada may read.
            let shared = try await f.data.create(
                "Doc", body: ["text": "shared", "ACL": [adaId: ["read": true], bobId: ["read": true, "write": true]]], caller: bob)
            #expect(await sink.json(1)?["object"]?["objectId"]?.stringValue == shared.objectId)
            // Bob takes Ada's read access away: no leave, no update reveals anything.
            _ = try await f.data.update(
                "Doc", id: shared.objectId, body: ["text": "now private", "ACL": [bobId: ["read": true, "write": true]]], caller: bob)
            _ = try await f.data.update("Doc", id: shared.objectId, body: ["text": "more"], caller: bob)
            // And gives it back: it enters.
            _ = try await f.data.update(
                "Doc", id: shared.objectId, body: ["ACL": [adaId: ["read": true], bobId: ["read": true, "write": true]]], caller: bob)
            let entered = try #require(await sink.json(2))
            #expect(entered["op"] == "enter")
            #expect(entered["object"]?["text"] == "more")
            #expect(sink.events.count == 2)
            #expect(!sink.events.contains { $0.json.contains("bob's") || $0.json.contains("now private") })
        }
    }

    @Test func aRoleGivesReadAccessAndTakingTheRoleAwayStopsTheEvents() async throws {
        try await HubFixture.run { f in
            let ada = try await f.user("ada")
            let adaId = try #require(ada.userId)
            let role = try await f.data.create(
                "_Role",
                body: [
                    "name": "editors", "ACL": ["*": ["read": true]],
                    "users": ["__op": "AddRelation", "objects": [pointer("_User", adaId)]],
                ], caller: HubFixture.master)
            _ = try await f.subscribe("Doc", as: ada)
            let sink = await f.connect()
            let doc = try await f.data.create(
                "Doc", body: ["text": "for editors", "ACL": ["role:editors": ["read": true]]], caller: HubFixture.master)
            #expect(await sink.json(1)?["object"]?["objectId"]?.stringValue == doc.objectId)
            // Ada leaves the role: the role's write reaches the hub, which walks her roles again.
            _ = try await f.data.update(
                "_Role", id: role.objectId, body: ["users": ["__op": "RemoveRelation", "objects": [pointer("_User", adaId)]]],
                caller: HubFixture.master)
            _ = try await f.data.update("Doc", id: doc.objectId, body: ["text": "editors only"], caller: HubFixture.master)
            _ = try await f.data.create("Doc", body: ["text": "marker"], caller: HubFixture.master)
            let next = try #require(await sink.json(2))
            #expect(next["object"]?["text"] == "marker")
            #expect(sink.events.count == 2)
        }
    }

    @Test func classPermissionsAreCheckedAtSubscribeAndAtDelivery() async throws {
        try await HubFixture.run { f in
            _ = try await f.data.create("Closed", body: ["n": 1], caller: HubFixture.master)
            _ = try await f.data.updateClassSettings("Closed", with: ["permissions": ["find": [:]]], caller: HubFixture.master)
            let refused = await dataError { _ = try await f.subscribe("Closed") }
            #expect(refused?.code == .forbiddenByClassPermissions)
            // The master key may; and a class whose find closes after the subscription goes quiet.
            _ = try await f.subscribe("Closed", id: "livequery-master", as: HubFixture.master)
            _ = try await f.subscribe("Open")
            _ = try await f.subscribe("Open", where: ["closes": true], id: "livequery-test")
            let sink = await f.connect()
            _ = try await f.data.create("Open", body: ["n": 1], caller: HubFixture.anyone)
            #expect(await sink.json(1)?["op"] == "create")
            _ = try await f.data.updateClassSettings("Open", with: ["permissions": ["find": [:]]], caller: HubFixture.master)
            _ = try await f.data.create("Open", body: ["n": 2], caller: HubFixture.master)
            _ = try await f.data.updateClassSettings("Open", with: ["permissions": ["find": ["*": true]]], caller: HubFixture.master)
            _ = try await f.data.create("Open", body: ["n": 3], caller: HubFixture.master)
            #expect(await sink.json(2)?["object"]?["n"] == 3)
            #expect(sink.events.count == 2)
        }
    }

    @Test func hiddenFieldsAreNeitherSentNorNamedNorQueryable() async throws {
        try await HubFixture.run { f in
            _ = try await f.data.create("Card", body: ["title": "t", "pin": "1234"], caller: HubFixture.master)
            _ = try await f.data.updateClassSettings("Card", with: ["schema": ["pin": ["hidden": true]]], caller: HubFixture.master)
            let refused = await dataError { _ = try await f.subscribe("Card", where: ["pin": ["$gte": "1"]]) }
            #expect(refused?.code == .operationForbidden)
            _ = try await f.subscribe("Card")
            let sink = await f.connect()
            let card = try await f.data.create("Card", body: ["title": "a", "pin": "9999"], caller: HubFixture.master)
            _ = try await f.data.update("Card", id: card.objectId, body: ["pin": "0000", "title": "b"], caller: HubFixture.master)
            let created = try #require(await sink.json(1))
            let updated = try #require(await sink.json(2))
            #expect(created["object"]?["pin"] == nil)
            #expect(updated["object"]?["pin"] == nil)
            #expect(updated["updatedKeys"] == ["title"])
            #expect(!sink.events.contains { $0.json.contains("9999") || $0.json.contains("0000") || $0.json.contains("pin") })
        }
    }

    @Test func keysAndReturnACLShapeTheObjectAsAFindWould() async throws {
        try await HubFixture.run { f in
            let plain = try await f.subscribe("Item", id: "livequery-test")
            let shaped = try await f.subscribe("Item", id: "livequery-test", extra: ["keys": "title"])
            let withACL = try await f.subscribe("Item", id: "livequery-test", extra: ["returnACL": true])
            let sink = await f.connect()
            _ = try await f.data.create("Item", body: ["title": "x", "price": 3, "ACL": ["*": ["read": true]]], caller: HubFixture.anyone)
            var events: [JSONValue] = []
            for n in 1...3 { events.append(try #require(await sink.json(n))) }
            let byQuery = Dictionary(uniqueKeysWithValues: events.map { ($0["query_id"]?.stringValue ?? "", $0["object"]) })
            #expect(byQuery[plain]??["price"] == 3)
            #expect(byQuery[plain]??["ACL"] == nil)
            #expect(byQuery[shaped]??["price"] == nil)
            #expect(byQuery[shaped]??["title"] == "x")
            #expect(byQuery[withACL]??["ACL"] == ["*": ["read": true]])
            #expect(byQuery[withACL]??["price"] == 3)
            #expect(byQuery[shaped]??["className"] == "Item")
        }
    }

    @Test func includesResolveOnlyWhatTheSubscriberMayRead() async throws {
        try await HubFixture.run { f in
            let ada = try await f.user("ada")
            let open = try await f.data.create("Person", body: ["name": "open"], caller: HubFixture.master)
            let closed = try await f.data.create(
                "Person", body: ["name": "closed", "ACL": ["nobody": ["read": true]]], caller: HubFixture.master)
            _ = try await f.subscribe("Task", extra: ["include": "owner"], as: ada)
            let sink = await f.connect()
            _ = try await f.data.create("Task", body: ["owner": pointer("Person", open.objectId)], caller: HubFixture.master)
            _ = try await f.data.create("Task", body: ["owner": pointer("Person", closed.objectId)], caller: HubFixture.master)
            let first = try #require(await sink.json(1))
            let second = try #require(await sink.json(2))
            #expect(first["object"]?["owner"]?["name"] == "open")
            #expect(second["object"]?["owner"]?["name"] == nil)
            #expect(!sink.events.contains { $0.json.contains("\"closed\"") })
        }
    }

    @Test func aUserSubscriptionSeesOnlyItsOwnRowAndNoCredentials() async throws {
        try await HubFixture.run { f in
            let ada = try await f.user("ada")
            _ = try await f.subscribe("_User", as: ada)
            let sink = await f.connect()
            _ = try await f.user("bob")
            let adaId = try #require(ada.userId)
            _ = try await f.data.update("_User", id: adaId, body: ["nickname": "A", "email": "ada@example.com"], caller: ada)
            let own = try #require(await sink.json(1))
            #expect(own["op"] == "update")
            #expect(own["object"]?["objectId"]?.stringValue == adaId)
            // Her own private field is hers to see; credentials never.
            #expect(own["object"]?["email"] == "ada@example.com")
            #expect(own["object"]?["password"] == nil)
            #expect(sink.events.count == 1)
        }
    }

    @Test func subscriptionsAFindWouldRefuseAreRefused() async throws {
        try await HubFixture.run { f in
            let ada = try await f.user("ada")
            let cases: [(JSONValue, DataAPIError.Code)] = [
                (["className": "Todo", "where": ["owner": ["$inQuery": ["className": "_User", "where": [:]]]]], .invalidQuery),
                (["className": "Todo", "where": ["n": ["$select": ["query": ["className": "X", "where": [:]], "key": "n"]]]], .invalidQuery),
                (["className": "Todo", "where": ["$relatedTo": ["object": pointer("Box", "b1"), "key": "items"]]], .invalidQuery),
                (["className": "Todo", "where": ["n": ["$bogus": 1]]], .invalidQuery),
                (["className": "Todo", "where": "not json"], .invalidQuery),
                (["className": "_Session", "where": [:]], .forbiddenByClassPermissions),
                (["className": "_Installation", "where": [:]], .forbiddenByClassPermissions),
                (["className": "_ClassSettings", "where": [:]], .operationForbidden),
                (["className": "_User", "where": ["password": ["$exists": true]]], .operationForbidden),
                (["className": "_User", "where": ["sessionToken": ["$gte": "a"]]], .operationForbidden),
                (["className": "Bad Name!", "where": [:]], .invalidClassName),
                (["where": [:]], .invalidClassName),
                ("Todo", .invalidQuery),
                (["className": "Todo", "where": ["n": ["$in": .array((0..<600).map { .int(Int64($0)) })]]], .invalidQuery),
            ]
            for (query, code) in cases {
                let error = await dataError { _ = try await f.hub.subscribe(id: "livequery-x", query: query, caller: ada) }
                #expect(error?.code == code, "\(query.jsonString): \(String(describing: error))")
            }
            // Even the master key reaches no credential and no internal class.
            let master = await dataError {
                _ = try await f.hub.subscribe(
                    id: "livequery-x", query: ["className": "_User", "where": ["password": ["$exists": true]]], caller: HubFixture.master)
            }
            #expect(master?.code == .operationForbidden)
            for id in ["", "has space", String(repeating: "a", count: 129), "ünï", "a/b"] {
                let error = await dataError { _ = try await f.hub.subscribe(id: id, query: ["className": "Todo"], caller: ada) }
                #expect(error?.code == .badParameters, "\(id)")
            }
            #expect(f.hub.statistics.subscriptions == 0)
        }
    }

    @Test func subscriptionsAndConnectionsAreBounded() async throws {
        var limits = LiveQueryLimits()
        limits.subscriptionsPerID = 3
        limits.subscriptions = 5
        limits.connectionsPerID = 2
        try await HubFixture.run(limits: limits) { f in
            for n in 0..<3 { _ = try await f.subscribe("Todo", where: ["n": .int(Int64(n))], id: "livequery-a") }
            let perID = await dataError { _ = try await f.subscribe("Todo", where: ["n": 9], id: "livequery-a") }
            #expect(perID?.code == .badParameters)
            // A re-subscribe of a held query is no new one.
            _ = try await f.subscribe("Todo", where: ["n": 0], id: "livequery-a")
            for n in 0..<2 { _ = try await f.subscribe("Todo", where: ["n": .int(Int64(n))], id: "livequery-b") }
            let host = await dataError { _ = try await f.subscribe("Todo", id: "livequery-c") }
            #expect(host?.code == .temporarilyUnavailable)
            #expect(f.hub.statistics.subscriptions == 5)
            _ = await f.connect("livequery-a")
            _ = await f.connect("livequery-a")
            #expect(!(await f.hub.attach(RecordingSink(), subscriptionID: "livequery-a")))
            #expect(!(await f.hub.attach(RecordingSink(), subscriptionID: "not valid")))
        }
    }

    @Test func aSlowConnectionIsDetachedAndItsEventsCountedAsDropped() async throws {
        try await HubFixture.run { f in
            _ = try await f.subscribe("Todo")
            let slow = await f.connect(capacity: 1)
            let fast = await f.connect()
            for n in 1...3 { _ = try await f.data.create("Todo", body: ["n": .int(Int64(n))], caller: HubFixture.anyone) }
            #expect(await fast.json(3)?["object"]?["n"] == 3)
            #expect(slow.events.count == 1)
            let statistics = f.hub.statistics
            #expect(statistics.eventsDropped == 1)
            #expect(statistics.slowConnections == 1)
            #expect(statistics.connections == 1)
            #expect(statistics.eventsDelivered == 4)
        }
    }
}
