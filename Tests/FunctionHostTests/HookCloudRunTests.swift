import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `AV.Cloud.run` of a Swift function from a JavaScript hook, over HTTP: the hook awaits its
/// answer and uses it, and the function runs as the hook's caller, whatever the client wrote
/// into the object it saves.
@Suite struct HookCloudRunTests {
    static let script = """
        var AV = require('leanengine');

        AV.Cloud.beforeSave('Order', async function (request) {
          var order = request.object;
          var priced = await AV.Cloud.run('price', { items: order.get('items') || [] });
          order.set('total', priced.total);
          // A client's claim rides in the params: it must not choose who the function runs as.
          var claim = order.get('claimedToken');
          var who = await AV.Cloud.run('swiftWho', { sessionToken: claim, _SessionToken: claim, user: claim });
          order.set('ranAs', who.username);
          order.set('ranMaster', who.master);
          order.unset('claimedToken');
        });
        """

    static var swiftFunctions: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.define("price") { request -> JSONValue in
            let items = request.params["items"]?.arrayValue ?? []
            return ["total": .int(items.compactMap(\.intValue).reduce(0, +))]
        }
        registry.define("swiftWho") { request -> JSONValue in
            ["username": request.currentUser?["username"] ?? .null, "master": .bool(request.isMaster)]
        }
        return registry
    }

    @Test func aBeforeSaveAwaitsASwiftFunctionAndUsesItsAnswer() async throws {
        try await JSDataServer.run(["hooks.js": Self.script], functions: Self.swiftFunctions) { api in
            _ = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            let reply = try await api.post("/1.1/classes/Order", headers: JSDataServer.session("tok-ada"), ["items": [2, 3, 4]])
            #expect(reply.status == .created, "\(reply)")
            let id = try #require(reply.objectId, "\(reply)")
            let stored = try await api.fetch("Order", id, headers: Headers.master)
            #expect(stored["total"] == 9, "\(stored)")
            #expect(stored["ranAs"] == "ada" && stored["ranMaster"] == false, "\(stored)")
        }
    }

    /// Attack: a client names another user's session token in the object (and so in the
    /// function's params); the function still runs as the client, with the client's rights.
    @Test func aClientCantMakeTheFunctionActAsSomeoneElse() async throws {
        try await JSDataServer.run(["hooks.js": Self.script], functions: Self.swiftFunctions) { api in
            _ = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            _ = try await JSDataServer.makeUser(api, "bob", token: "tok-bob")
            let asAda = try await api.create(
                "Order", ["items": [1], "claimedToken": "tok-bob"], headers: JSDataServer.session("tok-ada"))
            let stored = try await api.fetch("Order", asAda, headers: Headers.master)
            #expect(stored["ranAs"] == "ada" && stored["ranMaster"] == false, "\(stored)")
            #expect(stored["claimedToken"] == nil, "\(stored)")
            // Anonymous: nobody, and no master key either.
            let anonymous = try await api.create("Order", ["items": [1], "claimedToken": "tok-bob"])
            let nobody = try await api.fetch("Order", anonymous, headers: Headers.master)
            #expect((nobody["ranAs"] ?? .null) == .null && nobody["ranMaster"] == false, "\(nobody)")
            // The master key is the request's own, and only then.
            let master = try await api.create("Order", ["items": [1]], headers: Headers.master)
            #expect(try await api.fetch("Order", master, headers: Headers.master)["ranMaster"] == true)
        }
    }
}
