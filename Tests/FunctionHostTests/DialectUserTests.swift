import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// Users and sessions in the LAS and MaxLeap dialects, on LeanCloud's users
/// (`las-maxleap-dialects.md` §8, §9).
@Suite struct DialectUserTests {
    // DOC:AccountSystem.md:22-50: POST /2.0/users {"username","password"} → 200, the user's sessionToken and objectId.
    // JS:lib/user.js:374-385: POST /2.0/login {"username","password"};
    // DOC:AccountSystem.md:52-77 / PY:leapcloud/user.py:75-90: GET /2.0/login?username=…&password=….
    // BAAS:AppUserService.java:160-183: unknown user 211, wrong password 210.
    @Test(arguments: DialectCase.all)
    func signUpAndLogInBothWays(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let signup = try await api.post(
                dialect.path("users"), headers: dialect.client,
                ["username": "ada", "password": "pw", "_ApplicationId": "app", "_InstallationId": "i"])
            #expect(signup.status == .ok && signup.header("Location") == nil, "\(signup)")
            let id = try #require(signup.objectId)
            #expect(signup["sessionToken"]?.stringValue?.isEmpty == false)
            let posted = try await api.post(dialect.path("login"), headers: dialect.client, ["username": "ada", "password": "pw"])
            #expect(posted.status == .ok && posted.objectId == id && posted["sessionToken"] != nil, "\(posted)")
            #expect(posted["password"] == nil)
            let got = try await api.get(dialect.path("login?username=ada&password=pw"), headers: dialect.client)
            #expect(got.status == .ok && got.objectId == id && got["sessionToken"] != nil, "\(got)")
            expectDialectError(try await api.get(dialect.path("login?username=ada&password=no"), headers: dialect.client), code: 210)
            expectDialectError(try await api.post(dialect.path("login"), headers: dialect.client, ["username": "nobody", "password": "pw"]), code: 211)
            // The same user through LeanCloud's login.
            #expect(try await api.post("/1.1/login", ["username": "ada", "password": "pw"]).objectId == id)
        }
    }

    // DOC:api.json /users/me: GET /2.0/users/me with the session; BAAS:AccessControlServiceImpl.java:113-183:
    // unknown token 90100. DOC:AccountSystem.md:101-227: PUT /2.0/users/<id> → {"number":1,"updatedAt"}.
    // DOC:AccountSystem.md:79-99: GET /2.0/logout → {"success":true}; LAS: MyBaaS's {"number":n}.
    @Test(arguments: DialectCase.families)
    func currentUserUpdatesAndLogout(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let signup = try await api.post(
                dialect.path("users"), headers: dialect.client, ["username": "ada", "password": "pw", "mobilePhone": "+8613800000001"])
            let id = try #require(signup.objectId, "\(signup)")
            let token = try #require(signup["sessionToken"]?.stringValue)
            let me = try await api.get(dialect.path("users/me"), headers: dialect.session(token))
            #expect(me.status == .ok && me.objectId == id && me["username"] == "ada", "\(me)")
            // MaxLeap's phone field is LeanCloud's, both ways.
            #expect(me["mobilePhone"] == "+8613800000001" && me["mobilePhoneNumber"] == "+8613800000001", "\(me)")
            expectDialectError(try await api.get(dialect.path("users/me"), headers: dialect.session("nope")), code: 90100, status: .unauthorized)
            expectDialectError(try await api.get(dialect.path("users/me"), headers: dialect.client), code: 90100)
            let updated = try await api.put(dialect.path("users/\(id)"), headers: dialect.session(token), ["nickname": "A"])
            #expect(updated["number"] == 1 && updated["updatedAt"] != nil, "\(updated)")
            // JS:lib/object.js:920-929: users are updated and fetched through classes/_User as well.
            let viaClass = try await api.put(dialect.path("classes/_User/\(id)"), headers: dialect.session(token), ["age": 3])
            #expect(viaClass["number"] == 1, "\(viaClass)")
            let fetched = try await api.get(dialect.path("classes/_User/\(id)"), headers: dialect.session(token))
            #expect(fetched["nickname"] == "A" && fetched["age"] == 3, "\(fetched)")
            let logout = try await api.get(dialect.path("logout"), headers: dialect.session(token))
            #expect(logout.json == (dialect.family == "ML" ? ["success": true] : ["number": 1]), "\(logout)")
            expectDialectError(try await api.get(dialect.path("users/me"), headers: dialect.session(token)), code: 90100)
        }
    }

    // DOC:AccountSystem.md:133-152 / JS:lib/user.js:501-509: POST /2.0/updatePassword {"password","newPassword"}
    // with the session → {"number":1,"updatedAt"}; wrong old password 210.
    @Test(arguments: DialectCase.families)
    func passwordChange(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let signup = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "ada", "password": "old"])
            let token = try #require(signup["sessionToken"]?.stringValue, "\(signup)")
            expectDialectError(
                try await api.post(dialect.path("updatePassword"), headers: dialect.session(token), ["password": "bad", "newPassword": "new"]),
                code: 210)
            expectDialectError(
                try await api.post(dialect.path("updatePassword"), headers: dialect.client, ["password": "old", "newPassword": "new"]),
                code: 90100, status: .unauthorized)
            let changed = try await api.post(
                dialect.path("updatePassword"), headers: dialect.session(token), ["password": "old", "newPassword": "new"])
            #expect(changed.status == .ok && changed["number"] == 1 && changed["updatedAt"] != nil, "\(changed)")
            #expect(try await api.post(dialect.path("login"), headers: dialect.client, ["username": "ada", "password": "new"]).status == .ok)
            expectDialectError(try await api.post(dialect.path("login"), headers: dialect.client, ["username": "ada", "password": "old"]), code: 210)
        }
    }

    // DOC:AccountSystem.md:229-246: POST /2.0/requestPasswordReset {"email"} → {"success":true};
    // DOC:api.json: POST /2.0/requestEmailVerify {"email"} → {"success":true}.
    @Test(arguments: DialectCase.families)
    func emailResetAndVerification(dialect: DialectCase) async throws {
        try await VerificationTests.run(configure: { $0.publicURL = "https://api.example.com" }) { api in
            _ = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "gu", "password": "pw", "email": "gu@example.com"])
            let verify = try await api.post(dialect.path("requestEmailVerify"), headers: dialect.client, ["email": "gu@example.com"])
            #expect(verify.json == ["success": true], "\(verify)")
            #expect(try await Outbox.lastLinkPath(api, to: "gu@example.com").hasPrefix("/1.1/emailVerify/"))
            _ = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "ka", "password": "pw", "email": "ka@example.com"])
            let reset = try await api.post(dialect.path("requestPasswordReset"), headers: dialect.client, ["email": "ka@example.com"])
            #expect(reset.json == ["success": true], "\(reset)")
            expectDialectError(try await api.post(dialect.path("requestPasswordReset"), headers: dialect.client, ["email": "x@example.com"]), code: 205)
        }
    }

    // DOC:AccountSystem.md:247-287: POST /2.0/requestLoginSmsCode {"mobilePhone"} → {"success":true};
    // POST /2.0/loginByMobilePhone {"mobilePhone","smsCode"} → the user with its sessionToken.
    @Test(arguments: DialectCase.families)
    func smsLogin(dialect: DialectCase) async throws {
        try await VerificationTests.run { api in
            let phone = "+8613800000002"
            let signup = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "li", "password": "pw", "mobilePhone": .string(phone)])
            let id = try #require(signup.objectId, "\(signup)")
            let asked = try await api.post(dialect.path("requestLoginSmsCode"), headers: dialect.client, ["mobilePhone": .string(phone)])
            #expect(asked.json == ["success": true], "\(asked)")
            let code = try await Outbox.lastCode(api, to: phone)
            expectDialectError(
                try await api.post(dialect.path("loginByMobilePhone"), headers: dialect.client, ["mobilePhone": .string(phone), "smsCode": "000000"]),
                code: 603)
            let login = try await api.post(dialect.path("loginByMobilePhone"), headers: dialect.client, ["mobilePhone": .string(phone), "smsCode": .string(code)])
            #expect(login.status == .ok && login.objectId == id && login["sessionToken"] != nil, "\(login)")
            #expect(login["mobilePhone"] == .string(phone) && login["mobilePhoneVerified"] == true, "\(login)")
        }
    }

    // DOC:api.json: POST /requestMobilePhoneVerify {"mobilePhone"}, PUT /verifyMobilePhone {"mobilePhone","smsCode"};
    // JS:lib/user.js:869-873,919-922: POST /2.0/requestMobilePhoneVerify {"mobilePhoneNumber"}, POST /2.0/verifyMobilePhone/<code>.
    @Test(arguments: DialectCase.families)
    func phoneVerificationInBothForms(dialect: DialectCase) async throws {
        try await VerificationTests.run { api in
            for (index, swagger) in [true, false].enumerated() {
                let phone = "+861380000001\(index)"
                let signup = try await api.post(
                    dialect.path("users"), headers: dialect.client, ["username": .string("u\(index)"), "password": "pw", "mobilePhone": .string(phone)])
                let id = try #require(signup.objectId, "\(signup)")
                let field = swagger ? "mobilePhone" : "mobilePhoneNumber"
                let asked = try await api.post(dialect.path("requestMobilePhoneVerify"), headers: dialect.client, [field: .string(phone)])
                #expect(asked.json == ["success": true], "\(asked)")
                let code = try await Outbox.lastCode(api, to: phone)
                let done =
                    swagger
                    ? try await api.put(dialect.path("verifyMobilePhone"), headers: dialect.client, ["mobilePhone": .string(phone), "smsCode": .string(code)])
                    : try await api.post(dialect.path("verifyMobilePhone/\(code)"), headers: dialect.client, [:])
                #expect(done.json == ["success": true], "\(done)")
                #expect(try await VerificationTests.user(api, id)["mobilePhoneVerified"] == true)
            }
        }
    }

    // JS:lib/user.js:283-294: POST /2.0/users {"authData":{"anonymous":{"id":"<uuid>"}}} → sessionToken, authData, objectId.
    // JS:lib/user.js:112-178: third-party logins through the same endpoint; an unverifiable provider is refused as on LeanCloud (251).
    @Test(arguments: DialectCase.families)
    func anonymousAndThirdPartyLogins(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let anonymous: JSONValue = ["authData": ["anonymous": ["id": "5b2f1a9e-1b1c-11e6-9f0a-0800200c9a66"]]]
            let first = try await api.post(dialect.path("users"), headers: dialect.client, anonymous)
            #expect(first.status == .ok && first["sessionToken"] != nil && first["authData"]?["anonymous"] != nil, "\(first)")
            let again = try await api.post(dialect.path("users"), headers: dialect.client, anonymous)
            #expect(again.status == .ok && again.objectId == first.objectId, "the same anonymous user logs in: \(again)")
            let weixin = try await api.post(
                dialect.path("users"), headers: dialect.client, ["authData": ["weixin": ["openid": "wx-1", "access_token": "t"]]])
            expectDialectError(weixin, code: 251, status: .badRequest)
            // Nor through classes/_User (PY:leapcloud/user.py:60-73 signs up so), nor by a batch.
            expectDialectError(
                try await api.post(dialect.path("classes/_User"), headers: dialect.client, ["authData": ["qq": ["openid": "q"]]]), code: 251)
            let users = try await api.get(dialect.path("users?count=1&limit=0"), headers: dialect.master)
            #expect(users["count"] == 1, "\(users)")
        }
    }

    // las-maxleap-dialects.md §9: _Role with name, ACL, users/roles relations; requests go to classes/_Role
    // (or LeanCloud's /roles). PY:leapcloud/role.py:38-44.
    @Test(arguments: DialectCase.families)
    func rolesAsAClass(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let ada = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "ada", "password": "pw"])
            let adaId = try #require(ada.objectId)
            let role = try await api.post(
                dialect.path("classes/_Role"), headers: dialect.master,
                ["name": "Moderators", "ACL": ["*": ["read": true]],
                 "users": ["__op": "AddRelation", "objects": [pointer("_User", adaId)]]])
            #expect(role.status == .ok, "\(role)")
            let roleId = try #require(role.objectId)
            let found = try await api.get(dialect.path("roles/\(roleId)"), headers: dialect.client)
            #expect(found["name"] == "Moderators", "\(found)")
            // A role's members reach what the role may.
            let token = try #require(ada["sessionToken"]?.stringValue)
            let post = try await api.create("Post", ["text": "mod only", "ACL": ["role:Moderators": ["read": true]]], headers: Headers.master)
            #expect(try await api.get(dialect.path("classes/Post/\(post)"), headers: dialect.session(token))["text"] == "mod only")
            #expect(try await api.get(dialect.path("classes/Post/\(post)"), headers: dialect.client).json == [:])
            // Clients don't create roles unless the settings say so.
            let refused = try await api.post(dialect.path("roles"), headers: dialect.client, ["name": "Admins", "ACL": [:]])
            #expect(refused.status.code >= 400 && refused["errorCode"] != nil, "\(refused)")
        }
    }
}
