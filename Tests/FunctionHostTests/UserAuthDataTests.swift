import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Third-party and anonymous accounts, and the onLogin hook, over real HTTP (on servers that
/// trust third-party accounts unverified: `AuthDataVerificationTests` covers verification).
@Suite struct UserAuthDataTests {
    @Test func authDataSignsUpOnceThenLogsIn() async throws {
        try await TestServer.runTrustingAuthData { api in
            let weixin: JSONValue = ["authData": ["weixin": ["openid": "wx-1", "access_token": "t", "expires_in": 7200]]]
            let first = try await api.post("/1.1/users", weixin)
            #expect(first.status == .created && first["sessionToken"] != nil, "\(first)")
            let again = try await api.post("/1.1/users", weixin)
            #expect(again.status == .ok && again["objectId"] == first["objectId"], "the same account logs in: \(again)")
            #expect(again["authData"]?["weixin"]?["openid"] == "wx-1")
            let anonymous = try await api.post("/1.1/users", ["authData": ["anonymous": ["id": "8d2c6b9e"]]])
            #expect(anonymous.status == .created && anonymous["objectId"] != first["objectId"])
            expectError(try await api.post("/1.1/users", ["authData": ["weixin": ["token": "no id"]]]), code: 111, status: .badRequest)
        }
    }

    @Test func accountsLinkAndUnlink() async throws {
        try await TestServer.runTrustingAuthData { api in
            let ada = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            let id = try #require(ada.objectId)
            let session = Headers.session(try #require(ada["sessionToken"]?.stringValue))
            _ = try await api.put("/1.1/users/\(id)", headers: session, ["authData": ["github": ["uid": "gh-7"]]])
            _ = try await api.put("/1.1/users/\(id)", headers: session, ["authData": ["weibo": ["uid": "wb-3"]]])
            let linked = try await api.get("/1.1/users/me", headers: session)
            #expect(linked["authData"]?["github"]?["uid"] == "gh-7" && linked["authData"]?["weibo"]?["uid"] == "wb-3", "\(linked)")
            let viaGithub = try await api.post("/1.1/users", ["authData": ["github": ["uid": "gh-7"]]])
            #expect(viaGithub["objectId"] == .string(id) && viaGithub.status == .ok)
            let bob = try await api.post("/1.1/users", ["username": "bob", "password": "pw"])
            let bobSession = Headers.session(try #require(bob["sessionToken"]?.stringValue))
            expectError(
                try await api.put("/1.1/users/\(try #require(bob.objectId))", headers: bobSession, ["authData": ["github": ["uid": "gh-7"]]]),
                code: 137, status: .badRequest)
            _ = try await api.put("/1.1/users/\(id)", headers: session, ["authData": ["github": nil]])
            let unlinked = try await api.get("/1.1/users/me", headers: session)
            #expect(unlinked["authData"]?["github"] == nil && unlinked["authData"]?["weibo"] != nil, "\(unlinked)")
        }
    }

    @Test func onLoginMayRefuseALogin() async throws {
        var functions = FunctionRegistry()
        functions.hooks.define(.onLogin, "_User") { request in
            if request.object["banned"] == true { throw HookError(code: 1, message: "This account is banned.") }
        }
        try await TestServer.runTrustingAuthData(functions: functions) { api in
            _ = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            _ = try await api.post(
                "/1.1/users", headers: Headers.master,
                ["username": "eve", "password": "pw", "banned": true, "authData": ["weibo": ["uid": "eve-1"]]])
            #expect(try await api.post("/1.1/login", ["username": "ada", "password": "pw"]).status == .ok)
            expectError(try await api.post("/1.1/login", ["username": "eve", "password": "pw"]), code: 1, status: .unauthorized)
            // A login with a linked account is refused the same way.
            expectError(try await api.post("/1.1/users", ["authData": ["weibo": ["uid": "eve-1"]]]), code: 1, status: .unauthorized)
        }
    }

    @Test func aLockedAccountRefusesLinkedAccountLoginsUntilTheLockEnds() async throws {
        let clock = TestClock()
        try await TestServer.runTrustingAuthData(clock: clock) { api in
            _ = try await api.post("/1.1/users", ["username": "ada", "password": "pw", "authData": ["github": ["uid": "gh-1"]]])
            for _ in 0..<7 { _ = try await api.post("/1.1/login", ["username": "ada", "password": "wrong"]) }
            expectError(try await api.post("/1.1/users", ["authData": ["github": ["uid": "gh-1"]]]), code: 1, status: .badRequest)
            // The lock is measured on the server's clock, whichever login path asks.
            clock.advance(minutes: 16)
            #expect(try await api.post("/1.1/users", ["authData": ["github": ["uid": "gh-1"]]]).status == .ok)
        }
    }

    @Test func onLoginFromJavaScript() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
            const AV = require('leanengine');
            AV.Cloud.onLogin(function (request) {
              if (request.object.get('username') === 'mallory') throw new AV.Cloud.Error('Forbidden user.');
            });
            """.write(toFile: directory + "/login.js", atomically: true, encoding: .utf8)
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory) { api in
            _ = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            _ = try await api.post("/1.1/users", ["username": "mallory", "password": "pw"])
            #expect(try await api.post("/1.1/login", ["username": "ada", "password": "pw"]).status == .ok)
            let refused = try await api.post("/1.1/login", ["username": "mallory", "password": "pw"])
            #expect(refused.status == .unauthorized && refused["error"]?.stringValue?.contains("Forbidden user.") == true, "\(refused)")
            let names = try await api.get("/1.1/functions/_ops/metadatas", headers: Headers.master)
            #expect(names["result"]?.arrayValue?.contains("__on_login__User") == true, "\(names)")
        }
    }
}
