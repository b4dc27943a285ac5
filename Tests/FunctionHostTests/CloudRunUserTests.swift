import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `AV.Cloud.run(name, params, {user | sessionToken})` in JavaScript cloud code: the called
/// function runs as that user, whether it is JavaScript or Swift; an unknown name fails as
/// `POST /functions/{unknown}` does.
@Suite struct CloudRunUserTests {
    static let script = """
        var AV = require('leanengine');

        AV.Cloud.define('whoAmI', function (request) {
          var user = request.currentUser;
          return { username: user ? user.get('username') : null, token: request.sessionToken || null };
        });

        // Reads a note only its owner may read: with the user's rights, not the caller's.
        AV.Cloud.define('readNote', async function (request) {
          var note = await new AV.Query('Note').get(request.params.id, { user: request.currentUser });
          return note ? note.get('text') : null;
        });

        AV.Cloud.define('runAs', async function (request) {
          var token = request.params.token, options = token ? { sessionToken: token } : {};
          return {
            js: await AV.Cloud.run('whoAmI', {}, options),
            swift: await AV.Cloud.run('swiftWho', {}, options),
          };
        });

        AV.Cloud.define('runAsUser', async function (request) {
          var user = AV.User.createWithoutData('_User', request.params.id);
          user._sessionToken = request.params.token;
          return await AV.Cloud.run('swiftWho', {}, { user: user });
        });

        AV.Cloud.define('runNote', async function (request) {
          return await AV.Cloud.run('readNote', { id: request.params.id }, { sessionToken: request.params.token });
        });

        AV.Cloud.define('runMissing', async function () {
          return await AV.Cloud.run('noSuchFunction', {});
        });

        AV.Cloud.define('catchMissing', async function () {
          try { await AV.Cloud.run('noSuchFunction', {}); } catch (e) { return { code: e.code, message: e.message }; }
        });
        """

    static var swiftFunctions: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.define("swiftWho") { request -> JSONValue in
            ["username": request.currentUser?["username"] ?? .null, "token": request.sessionToken.map(JSONValue.string) ?? .null]
        }
        return registry
    }

    @Test func theCalledFunctionRunsAsTheNamedUser() async throws {
        try await JSDataServer.run(["run.js": Self.script], functions: Self.swiftFunctions) { api in
            _ = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            let bob = try await JSDataServer.makeUser(api, "bob", token: "tok-bob")
            // Called by ada, on behalf of bob: both kinds of function see bob.
            let asBob = try await api.jsFunction("runAs", ["token": "tok-bob"], headers: JSDataServer.session("tok-ada"))
            #expect(asBob["js"] == ["username": "bob", "token": "tok-bob"], "\(asBob)")
            #expect(asBob["swift"] == ["username": "bob", "token": "tok-bob"], "\(asBob)")
            // Without options, the caller's own user, as before.
            let own = try await api.jsFunction("runAs", [:], headers: JSDataServer.session("tok-ada"))
            #expect(own["swift"]?["username"] == "ada", "\(own)")
            let byUser = try await api.jsFunction("runAsUser", ["id": .string(bob), "token": "tok-bob"])
            #expect(byUser["username"] == "bob", "{user} names the user too: \(byUser)")
        }
    }

    @Test func theUsersRightsComeWithItAndAWrongTokenIsNobody() async throws {
        try await JSDataServer.run(["run.js": Self.script], functions: Self.swiftFunctions) { api in
            let ada = try await JSDataServer.makeUser(api, "ada", token: "tok-ada")
            _ = try await JSDataServer.makeUser(api, "eve", token: "tok-eve")
            let note = try await api.create(
                "Note", ["text": "ada's", "ACL": [.init(stringLiteral: ada): ["read": true]]], headers: Headers.master)
            #expect(try await api.jsFunction("runNote", ["id": .string(note), "token": "tok-ada"]) == "ada's")
            // Eve's token reads nothing of ada's, and an unknown token is refused, not ignored.
            let asEve = try await api.post("/1.1/functions/runNote", headers: JSDataServer.session("tok-eve"), ["id": .string(note), "token": "tok-eve"])
            #expect(asEve["result"] == nil || asEve["result"] == .null, "\(asEve)")
            let forged = try await api.post("/1.1/functions/runAs", headers: JSDataServer.session("tok-eve"), ["token": "tok-forged"])
            #expect(forged.status.code >= 400 && forged["code"] == 211, "\(forged)")
        }
    }

    @Test func anUnknownNameFailsAsOverHTTP() async throws {
        try await JSDataServer.run(["run.js": Self.script], functions: Self.swiftFunctions) { api in
            let direct = try await api.post("/1.1/functions/noSuchFunction", [:])
            let viaRun = try await api.post("/1.1/functions/runMissing", [:])
            #expect(direct.status == .notFound && direct["code"] == 1, "\(direct)")
            #expect(viaRun.status == direct.status && viaRun.json == direct.json, "\(viaRun) vs \(direct)")
            let caught = try await api.jsFunction("catchMissing")
            #expect(caught == ["code": 1, "message": direct["error"] ?? .null], "\(caught)")
        }
    }
}
