import DataAPI
import Hooks
import JSON
import LiveQuery
import TestSupport
import Testing

@testable import FunctionHost

/// `beforeSubscribe` (may narrow or refuse a subscription) and `afterLiveQueryEvent` (may change
/// or drop one subscriber's event), from Swift and from JavaScript, as Parse Server's LiveQuery
/// triggers. What a hook leaves is still checked and viewed as the subscriber's.
@Suite struct LiveQueryHookTests {
    private static let script = """
        AV.Cloud.beforeSubscribe('Todo', function (request) {
          if (request.query.toJSON().where && request.query.toJSON().where.all) throw new AV.Cloud.Error('No.', { code: 142 });
          request.query.equalTo('shared', true);
        });
        AV.Cloud.afterLiveQueryEvent('Todo', function (request) {
          if (request.object.get('drop')) throw new AV.Cloud.Error('dropped');
          request.object.set('seenBy', request.event);
        });
        """

    private static func exercise(_ api: API, _ hub: LiveQueryHub) async throws {
        // The hook refuses this subscription, and narrows the other to shared todos.
        let refused = try await api.post(
            "/1.1/LiveQuery/subscribe", ["query": ["className": "Todo", "where": ["all": true]], "id": "livequery-route"])
        expectError(refused, code: 142)
        _ = try await LiveQueryServer.subscribe(api, ["className": "Todo", "where": [:]])
        let sink = await LiveQueryServer.connect(hub)
        _ = try await api.create("Todo", ["title": "private", "shared": false])
        _ = try await api.create("Todo", ["title": "dropped", "shared": true, "drop": true])
        _ = try await api.create("Todo", ["title": "kept", "shared": true])
        let event = try #require(await sink.json(1))
        #expect(event["object"]?["title"] == "kept")
        #expect(event["object"]?["seenBy"] == "create")
        #expect(event["object"]?["className"] == "Todo")
        #expect(sink.events.count == 1)
    }

    @Test func swiftHooksNarrowRefuseChangeAndDrop() async throws {
        var functions = FunctionRegistry()
        functions.hooks.beforeSubscribe("Todo") { request in
            if request.object["where"]?["all"] != nil { throw HookError(message: "No.") }
            request.object["where"] = ["shared": true]
        }
        functions.hooks.afterLiveQueryEvent("Todo") { request in
            if request.object["drop"] == true { throw HookError(message: "dropped") }
            request.object["seenBy"] = request.event.context["op"]
        }
        try await LiveQueryServer.run(functions: functions) { api, hub in try await Self.exercise(api, hub) }
    }

    @Test func javaScriptHooksNarrowRefuseChangeAndDrop() async throws {
        try await LiveQueryServer.run(scripts: ["cloud.js": Self.script]) { api, hub in try await Self.exercise(api, hub) }
    }

    @Test func aHookCannotWidenASubscriptionPastWhatAFindAllows() async throws {
        var functions = FunctionRegistry()
        functions.hooks.beforeSubscribe("Card") { request in request.object["where"] = ["pin": ["$exists": true]] }
        try await LiveQueryServer.run(functions: functions) { api, _ in
            _ = try await api.create("Card", ["pin": "1"], headers: Headers.master)
            _ = try await api.put("/1.1/schemas/Card", headers: Headers.master, ["schema": ["pin": ["hidden": true]]])
            let reply = try await api.post("/1.1/LiveQuery/subscribe", ["query": ["className": "Card", "where": [:]], "id": "livequery-route"])
            expectError(reply, code: 119)
        }
    }
}
