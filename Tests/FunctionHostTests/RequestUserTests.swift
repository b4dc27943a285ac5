import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// LeanEngine's Node SDK gives a function and a hook the current user twice, as `request.user`
/// and `request.currentUser` (one `AV.User`); `AV.Cloud.run(name, params, {user})` passes it on;
/// a hook that sets `request.user` on its object saves a Pointer to the user.
@Suite struct RequestUserTests {
    static let script = """
        var AV = require('leanengine');

        AV.Cloud.define('whoAmI', function (request) {
          var user = request.user;
          return { username: user ? user.get('username') : null, isUser: user instanceof AV.User,
            same: user === request.currentUser };
        });

        AV.Cloud.define('runAsMe', function (request) {
          return AV.Cloud.run('whoAmI', {}, { user: request.user });
        });

        AV.Cloud.beforeSave('Comment', function (request) {
          if (!(request.user instanceof AV.User) || request.user !== request.currentUser) throw new AV.Cloud.Error('no user');
          request.object.set('author', request.user);
          request.object.set('authorName', request.user.get('username'));
        });
        """

    static func session(_ token: String) -> HTTPFields {
        Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Session", token), ("Content-Type", "application/json")])
    }

    @Test func aFunctionSeesRequestUserAndPassesItOn() async throws {
        try await EdgeFixture.run(scripts: ["cloud.js": Self.script]) { api, _ in
            _ = try await api.create("_User", ["username": "ada", "sessionToken": "tok-ada"], headers: Headers.master)
            let direct = try await api.post("/1.1/functions/whoAmI", headers: Self.session("tok-ada"), [:])
            #expect(direct["result"] == ["username": "ada", "isUser": true, "same": true], "\(direct)")
            let passed = try await api.post("/1.1/functions/runAsMe", headers: Self.session("tok-ada"), [:])
            #expect(passed["result"] == ["username": "ada", "isUser": true, "same": true], "\(passed)")
            // Nobody signed in: no user, either way.
            let anonymous = try await api.post("/1.1/functions/whoAmI", headers: Headers.client, [:])
            #expect(anonymous["result"]?["username"] == .null, "\(anonymous)")
        }
    }

    @Test func aHookSavesTheBodyUserAsAPointer() async throws {
        try await EdgeFixture.run(scripts: ["cloud.js": Self.script]) { api, _ in
            let ada = try await api.create("_User", ["username": "ada", "sessionToken": "tok-ada"], headers: Headers.master)
            // The JS SDK's `new AV.Object('Comment').save()` of a signed-in user.
            let created = try await api.post("/1.1/classes/Comment", headers: Self.session("tok-ada"), ["text": "hi"])
            #expect(created.status == .created, "\(created)")
            let id = try #require(created.objectId)
            let stored = try await api.get("/1.1/classes/Comment/\(id)", headers: Headers.master)
            #expect(stored["author"] == ["__type": "Pointer", "className": "_User", "objectId": .string(ada)], "\(stored)")
            #expect(stored["authorName"] == "ada", "\(stored)")
            // Nobody signed in: the hook refuses, nothing is saved.
            let refused = try await api.post("/1.1/classes/Comment", headers: Headers.client, ["text": "anonymous"])
            #expect(refused.status.code >= 400, "\(refused)")
            let all = try await api.get("/1.1/classes/Comment", headers: Headers.master)
            #expect(all.results.count == 1, "\(all)")
        }
    }
}
