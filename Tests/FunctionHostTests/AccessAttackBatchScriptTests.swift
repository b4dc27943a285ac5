import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The same attacks through `/1.1/batch` and through a JavaScript cloud function's data API
/// acting as its caller: each route gets the refusals the plain REST routes get.
@Suite struct AccessAttackBatchScriptTests {
    typealias A = AccessAttack

    /// One batch item.
    static func item(_ method: String, _ path: String, params: JSONValue? = nil) -> JSONValue {
        var item: [String: JSONValue] = ["method": .string(method), "path": .string(path)]
        if let params { item["params"] = params }
        return .object(item)
    }

    /// The token-prefix oracle as a `$select` over `_User`, as JSON.
    static func tokenOracle(_ prefix: String) throws -> JSONValue {
        try json(A.select("name", A.subquery("_User", #"{"sessionToken":{"$regex":"^\#(prefix)"}}"#), key: "username"))
    }

    @Test func batchedReadsGetTheSameRefusals() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api, adaFields: ["email": "ada@example.com"])
            let probe = try await api.create("Probe", ["name": "ada"], headers: people.bobSession)
            _ = try await api.create("_Outbox", ["to": "ada"], headers: Headers.master)
            let oracle = try Self.tokenOracle(String(people.adaToken.prefix(8)))
            let outbox = try json(A.select("name", A.subquery("_Outbox"), key: "to"))
            let requests: JSONValue = [
                "requests": [
                    Self.item("GET", "/1.1/classes/Probe", params: ["where": oracle]),
                    Self.item("GET", "/1.1/classes/Probe", params: ["where": outbox]),
                    Self.item("GET", "/1.1/classes/_User", params: ["order": "sessionToken"]),
                    Self.item("GET", "/1.1/classes/_User"),
                    Self.item("GET", "/1.1/users/\(people.ada)"),
                ]
            ]
            // With the master key every item answers but those on credentials, which are no one's
            // to filter or sort on (issue 30's second review).
            let master = try #require(try await api.post("/1.1/batch", headers: Headers.master, requests).json?.arrayValue)
            #expect(master.count == 5 && [1, 3, 4].allSatisfy { master[$0]["success"] != nil }, "master precondition: \(master)")
            let outboxProbe = master[1]["success"]?["results"]?.arrayValue?.first?["objectId"]
            #expect(outboxProbe == .string(probe), "\(master)")
            #expect(master[0]["error"]?["code"] == 119 && master[2]["error"]?["code"] == 119, "\(master)")

            let reply = try await api.post("/1.1/batch", headers: people.bobSession, requests)
            let items = try #require(reply.json?.arrayValue, "\(reply)")
            try #require(items.count == 5, "\(reply)")
            let forbiddenToken: JSONValue = ["code": 119, "error": "Forbidden to query the field sessionToken."]
            #expect(items[0]["error"] == forbiddenToken, "oracle: \(items[0])")
            #expect(items[1]["error"]?["code"] == 119, "internal class: \(items[1])")
            #expect(items[2]["error"] == forbiddenToken, "order: \(items[2])")
            let users = items[3]["success"]?["results"]?.arrayValue?.compactMap { $0["objectId"]?.stringValue }
            #expect(users == [people.bob], "_User find lists others: \(items[3])")
            let ada = items[4]["success"]
            #expect(ada?["username"] == "ada" && ada?["email"] == nil && ada?["emailVerified"] == nil, "\(items[4])")
        }
    }

    /// Cloud functions whose data calls act as the caller (`{sessionToken: request.sessionToken}`),
    /// answering what they got or the error's code and message.
    static let script = """
        var AV = require('leanengine');

        function settle(promise, map) {
          return promise.then(function (value) { return { ok: true, value: map(value) }; },
            function (error) { return { ok: false, code: error.code, message: error.message }; });
        }
        function ids(objects) { return objects.map(function (o) { return o.id; }); }
        function options(request) {
          return request.params.master ? { useMasterKey: true } : { sessionToken: request.sessionToken };
        }

        AV.Cloud.define('findUsers', function (request) {
          return settle(new AV.Query('_User').find(options(request)), ids);
        });

        // A plain pattern (tokens are letters and digits): startsWith's \\Q...\\E quoting
        // isn't a PostgreSQL regular expression.
        AV.Cloud.define('usersByToken', function (request) {
          var query = new AV.Query('_User');
          query.matches('sessionToken', '^' + request.params.prefix);
          return settle(query.find(options(request)), ids);
        });

        AV.Cloud.define('probesByToken', function (request) {
          var users = new AV.Query('_User');
          users.matches('sessionToken', '^' + request.params.prefix);
          var probes = new AV.Query('Probe');
          probes.matchesKeyInQuery('name', 'username', users);
          return settle(probes.find(options(request)), ids);
        });

        AV.Cloud.define('probesByOutbox', function (request) {
          var probes = new AV.Query('Probe');
          probes.matchesKeyInQuery('name', 'to', new AV.Query('_Outbox'));
          return settle(probes.find(options(request)), ids);
        });

        AV.Cloud.define('getUser', function (request) {
          return settle(new AV.Query('_User').get(request.params.id, options(request)),
            function (user) { return Object.keys(user.toJSON()).sort(); });
        });
        """

    @Test func aCloudFunctionActingAsItsCallerGetsTheSameRefusals() async throws {
        try await JSDataServer.run(["attack.js": Self.script]) { api in
            let people = try await A.people(api, adaFields: ["email": "ada@example.com", "mobilePhoneNumber": "+8613912345678"])
            _ = try await api.create("Probe", ["name": "ada"], headers: people.bobSession)
            _ = try await api.create("_Outbox", ["to": "ada"], headers: Headers.master)
            let prefix: JSONValue = .string(String(people.adaToken.prefix(8)))
            let forbidden: JSONValue = ["ok": false, "code": 119, "message": "Forbidden to query the field sessionToken."]
            // Not even as the master key: credentials are in no condition (issue 30's second review).
            for name in ["usersByToken", "probesByToken"] {
                let refused = try await api.jsFunction(name, ["prefix": prefix, "master": true], headers: people.bobSession)
                #expect(refused == forbidden, "\(name) as master: \(refused)")
            }
            // The host's own classes are no cloud code's, the master key's included (issue 30).
            let outboxAsMaster = try await api.jsFunction("probesByOutbox", ["master": true], headers: people.bobSession)
            #expect(outboxAsMaster["ok"] == false && outboxAsMaster["code"] == 119, "internal class as master: \(outboxAsMaster)")
            let everyone = try await api.jsFunction("findUsers", ["master": true], headers: people.bobSession)
            #expect(everyone["value"]?.arrayValue?.count == 2, "master precondition: \(everyone)")

            for name in ["usersByToken", "probesByToken"] {
                let refused = try await api.jsFunction(name, ["prefix": prefix], headers: people.bobSession)
                #expect(refused == forbidden, "\(name) as bob: \(refused)")
            }
            let outbox = try await api.jsFunction("probesByOutbox", headers: people.bobSession)
            #expect(outbox["ok"] == false && outbox["code"] == 119, "internal class as bob: \(outbox)")
            let own = try await api.jsFunction("findUsers", headers: people.bobSession)
            #expect(own == ["ok": true, "value": [.string(people.bob)]], "_User find as bob: \(own)")
            let anonymous = try await api.jsFunction("findUsers")
            #expect(anonymous == ["ok": true, "value": []], "_User find with no user: \(anonymous)")

            // Another user's private fields aren't in what the function reads as bob.
            let ada = try await api.jsFunction("getUser", ["id": .string(people.ada)], headers: people.bobSession)
            let keys = Set(ada["value"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            #expect(ada["ok"] == true && keys.contains("username"), "\(ada)")
            let leaked = keys.intersection(A.userPrivateFields + A.alwaysHiddenUserFields)
            #expect(leaked.isEmpty, "a function acting as bob reads ada's \(leaked.sorted())")
        }
    }
}
