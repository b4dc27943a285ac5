import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The user requests of the official SDKs (ios-sdk-wire.md §7, the JS SDK's user.js), as they
/// send them: `failOnNotExist`, UnionID logins, linking a provider, anonymous logins, and the
/// places a session token may come from; each with the attack its new path opens. The servers
/// trust third-party accounts unverified, as the SDKs' test app did (`AuthDataVerificationTests`
/// covers verification).
@Suite struct UserWireTests {
    /// The JS SDK's `weixin_1` entry of `loginWithAuthDataAndUnionId`.
    static func weixin(_ openid: String, union: String, platform: String = "weixin", main: Bool) -> JSONValue {
        [
            "uid": .string(openid), "access_token": "access_token", "expires_in": 1_382_686_496,
            "platform": .string(platform), "unionid": .string(union), "main_account": .bool(main),
        ]
    }

    /// How many users there are, by the master key.
    static func userCount(_ api: API) async throws -> Int {
        let reply = try await api.get("/1.1/users?count=1&limit=0", headers: Headers.master)
        return Int(reply["count"]?.doubleValue ?? -1)
    }

    @Test func failOnNotExistAnswers211AndCreatesNobody() async throws {
        try await TestServer.runTrustingAuthData { api in
            _ = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            let body: JSONValue = ["authData": ["weixin_1": ["uid": "openid1", "access_token": "t", "expires_in": 7200]]]
            let refused = try await api.post("/1.1/users?failOnNotExist=true", body)
            #expect(refused.status == .badRequest && refused.json == ["code": 211, "error": "Could not find user."], "\(refused)")
            #expect(try await Self.userCount(api) == 1, "nothing created")
            // Without the flag the same request signs up, and with it the account then logs in.
            let created = try await api.post("/1.1/users", body)
            #expect(created.status == .created, "\(created)")
            let again = try await api.post("/1.1/users?failOnNotExist=true", body)
            #expect(again.status == .ok && again.objectId == created.objectId && again["sessionToken"] != nil, "\(again)")
        }
    }

    @Test func failOnNotExistCantLogInThroughAnotherProvidersId() async throws {
        try await TestServer.runTrustingAuthData { api in
            let ada = try await api.post("/1.1/users", ["authData": ["github": ["uid": "gh-1"]]])
            #expect(ada.status == .created)
            // The same id under another provider is another account: nobody is found.
            let other = try await api.post("/1.1/users?failOnNotExist=true", ["authData": ["gitlab": ["uid": "gh-1"]]])
            expectError(other, code: 211, status: .badRequest)
            #expect(try await Self.userCount(api) == 1)
        }
    }

    @Test func unionIDLogsInTheMainAccountFromAnotherApp() async throws {
        try await TestServer.runTrustingAuthData { api in
            // user.js "should login as the same user": a username, then another app's openid.
            let first = try await api.post(
                "/1.1/users", ["username": "k0qf2yru", "authData": ["weixin_1": Self.weixin("openid1", union: "u1", main: true)]])
            #expect(first.status == .created, "\(first)")
            #expect(first["authData"]?["_weixin_unionid"] == ["uid": "u1"], "the main account is marked: \(first)")
            let second = try await api.post("/1.1/users", ["authData": ["weixin_2": Self.weixin("openid2", union: "u1", main: false)]])
            #expect(second.status == .ok && second.objectId == first.objectId && second["username"] == "k0qf2yru", "\(second)")
            #expect(second["authData"]?["weixin_2"]?["uid"] == "openid2", "the new app's entry joins the account: \(second)")
            // ... and that app's openid now logs in alone.
            let third = try await api.post("/1.1/users", ["authData": ["weixin_2": ["uid": "openid2"]]])
            #expect(third.status == .ok && third.objectId == first.objectId)
            #expect(try await Self.userCount(api) == 1)
        }
    }

    @Test func unionIDOfAnotherPlatformIsAnotherPerson() async throws {
        try await TestServer.runTrustingAuthData { api in
            let victim = try await api.post("/1.1/users", ["authData": ["weixin_1": Self.weixin("openid1", union: "u1", main: true)]])
            // The same UnionID claimed on QQ (or with no platform) is not the WeChat user's.
            let qq = try await api.post("/1.1/users", ["authData": ["qq_app": Self.weixin("q1", union: "u1", platform: "qq", main: false)]])
            #expect(qq.status == .created && qq.objectId != victim.objectId, "\(qq)")
            let bare = try await api.post("/1.1/users", ["authData": ["weixin_3": ["uid": "w3", "unionid": "u1"]]])
            #expect(bare.status == .created && bare.objectId != victim.objectId, "\(bare)")
            // A platform can't reach into other fields of authData.
            let injected = try await api.post(
                "/1.1/users", ["authData": ["x": Self.weixin("x1", union: "u1", platform: "weixin_1.uid", main: false)]])
            expectError(injected, code: 105, status: .badRequest)
            // A second main account for the same UnionID is refused.
            let twice = try await api.post("/1.1/users", ["authData": ["weixin_9": ["uid": "w9"]]])
            #expect(twice.status == .created)
            let session = Headers.session(try #require(twice["sessionToken"]?.stringValue))
            let claim = try await api.put(
                "/1.1/users/\(try #require(twice.objectId))", headers: session,
                ["authData": ["weixin_4": Self.weixin("w4", union: "u1", main: true)]])
            expectError(claim, code: 137, status: .badRequest)
        }
    }

    @Test func associatingKeepsTheOtherProvidersAndAnswersThemWithNew() async throws {
        try await TestServer.runTrustingAuthData { api in
            let user = try await api.post("/1.1/users", ["authData": ["test": ["uid": "zaabbbccc123123"]]])
            let id = try #require(user.objectId)
            let session = Headers.session(try #require(user["sessionToken"]?.stringValue))
            // user.js "associate with authData": the JS SDK's PUT with new=true.
            let linked = try await api.put(
                "/1.1/users/\(id)?new=true", headers: session,
                ["authData": ["weixin": ["openid": "aaabbbccc123123", "access_token": "a", "expires_in": 1_382_686_496]]])
            #expect(linked.status == .ok && linked["authData"]?["test"] != nil && linked["authData"]?["weixin"] != nil, "\(linked)")
            // The same through /classes/_User, and the unlink the SDK sends.
            let viaClasses = try await api.put(
                "/1.1/classes/_User/\(id)?fetchWhenSave=true", headers: session, ["authData": ["github": ["uid": "gh-2"]]])
            #expect(viaClasses["authData"]?["test"] != nil && viaClasses["authData"]?["github"] != nil, "\(viaClasses)")
            let unlinked = try await api.put(
                "/1.1/users/\(id)?new=true", headers: session, ["authData.weixin": ["__op": "Delete"]])
            #expect(unlinked.status == .ok, "\(unlinked)")
            let me = try await api.get("/1.1/users/me", headers: session)
            #expect(me["authData"]?["weixin"] == nil && me["authData"]?["test"] != nil, "\(me)")
        }
    }

    @Test func nobodyAttachesAuthDataToAnotherUser() async throws {
        try await TestServer.runTrustingAuthData { api in
            let ada = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            let eve = try await api.post("/1.1/users", ["username": "eve", "password": "pw"])
            let adaId = try #require(ada.objectId)
            let eveSession = Headers.session(try #require(eve["sessionToken"]?.stringValue))
            let attach: JSONValue = ["authData": ["weixin": ["openid": "eve-wx"]]]
            for path in ["/1.1/users/\(adaId)?new=true", "/1.1/classes/_User/\(adaId)"] {
                expectError(try await api.put(path, headers: eveSession, attach), code: 206)
                expectError(try await api.put(path, attach), code: 206)
            }
            let batch = try await api.post(
                "/1.1/batch", headers: eveSession,
                ["requests": [["method": "PUT", "path": .string("/1.1/users/\(adaId)"), "body": attach]]])
            #expect(batch.json?.arrayValue?.first?["error"]?["code"] == 206, "\(batch)")
            // Eve's openid logs nobody in as Ada.
            let login = try await api.post("/1.1/users?failOnNotExist=true", attach)
            expectError(login, code: 211)
            let stored = try await api.get("/1.1/users/\(adaId)", headers: Headers.master)
            #expect(stored["authData"] == nil, "\(stored)")
        }
    }

    @Test func anonymousLoginAnswersItsAuthData() async throws {
        try await TestServer.runTrustingAuthData { api in
            let body: JSONValue = ["authData": ["anonymous": ["id": "1b671a64-40d5-491e-99b0-da01ff1f3341"]]]
            let first = try await api.post("/1.1/users", body)
            #expect(first.status == .created && first["authData"] == body["authData"], "\(first)")
            #expect(first["sessionToken"] != nil && first["username"] != nil && first["password"] == nil, "\(first)")
            let again = try await api.post("/1.1/users", body)
            #expect(again.status == .ok && again.objectId == first.objectId && again["authData"] == body["authData"], "\(again)")
            // user.js "create an anonymous user, and then associateWithAuthData": no longer anonymous.
            let session = Headers.session(try #require(first["sessionToken"]?.stringValue))
            let linked = try await api.put(
                "/1.1/classes/_User/\(try #require(first.objectId))?new=true", headers: session,
                ["authData": ["github": ["uid": "justsomerandomstring", "access_token": "access_token"]]])
            #expect(linked["authData"] == ["github": ["uid": "justsomerandomstring", "access_token": "access_token"]], "\(linked)")
        }
    }

    @Test func sessionComesFromTheQueryOrAnyOfTheSessionHeaders() async throws {
        try await TestServer.runTrustingAuthData { api in
            let ada = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            let token = try #require(ada["sessionToken"]?.stringValue)
            let byQuery = try await api.get("/1.1/users/me?session_token=\(token)")
            #expect(byQuery.status == .ok && byQuery["sessionToken"] == .string(token), "\(byQuery)")
            for header in ["X-Parse-Session-Token", "X-AVOSCloud-Session-Token", "X-LC-Session"] {
                let headers = Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), (header, token)])
                let me = try await api.get("/1.1/users/me", headers: headers)
                #expect(me.objectId == ada.objectId, "\(header): \(me)")
                // The header is the caller's session everywhere, not only for users/me.
                let update = try await api.put("/1.1/users/\(try #require(ada.objectId))", headers: headers, ["nickname": "A"])
                #expect(update.status == .ok, "\(header): \(update)")
            }
            expectError(try await api.get("/1.1/users/me?session_token=wrong"), code: 211)
            expectError(try await api.get("/1.1/users/me"), code: 211)
        }
    }
}
