import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// MaxLeap's signup answer, deletes of missing ids, its session-only requests and its logout, as
/// its docs' curls send them (`las-maxleap-dialects.md` §5, §8).
@Suite struct DialectSessionTests {
    /// MaxLeap's docs' headers for a user's calls: the app id, the session, a JSON content type,
    /// and no key (`DOC:AccountSystem.md:79-118`).
    static func sessionOnly(_ dialect: DialectCase, _ token: String) -> HTTPFields {
        var headers = dialect.headers(("Session-Token", token))
        headers[.contentType] = "application/json"
        return headers
    }

    // BAAS:CloudDataBatchResource.java:146-157 / BAAS:AppUserResource.java:140-150: a delete
    // answers {"number":<deleted>}, 0 for an id with no object; LeanCloud's route answers {} both ways.
    @Test(arguments: DialectCase.families)
    func deletingAMissingIdAnswersNumberZero(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let id = try await api.create("Post", ["text": "hi"])
            let missing = "0123456789abcdef01234567"
            let none = try await api.delete(dialect.path("classes/Post/\(missing)"), headers: dialect.client)
            #expect(none.status == .ok && none.json == ["number": 0], "\(none)")
            let one = try await api.delete(dialect.path("classes/Post/\(id)"), headers: dialect.client)
            #expect(one.status == .ok && one.json == ["number": 1], "\(one)")
            let again = try await api.delete(dialect.path("classes/Post/\(id)"), headers: dialect.client)
            #expect(again.json == ["number": 0], "\(again)")
            #expect(try await api.delete(dialect.path("classes/Nothing/\(missing)"), headers: dialect.client).json == ["number": 0])
            // Users and roles (delete needs the master key, BAAS:AppUserResource.java:140-150).
            #expect(try await api.delete(dialect.path("users/\(missing)"), headers: dialect.master).json == ["number": 0])
            #expect(try await api.delete(dialect.path("roles/\(missing)"), headers: dialect.master).json == ["number": 0])
            let user = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "ada", "password": "pw"])
            let userId = try #require(user.objectId, "\(user)")
            #expect(try await api.delete(dialect.path("users/\(userId)"), headers: dialect.master).json == ["number": 1])
            // A conditional delete still is one (DOC:CloudData.md:239).
            let kept = try await api.create("Post", ["text": "keep"])
            let unmet = try await api.delete(
                dialect.path("classes/Post/\(kept)?where=%7B%22text%22%3A%22other%22%7D"), headers: dialect.client)
            expectDialectError(unmet, code: 305)
            #expect(try await api.fetch("Post", kept)["text"] == "keep")
        }
    }

    // DOC:AccountSystem.md:22-50 and BAAS:AppUserResource.java:43-76: the signup answer is the user
    // as stored, without its password, with its sessionToken; PY:leapcloud/user.py:60-73 signs up
    // through classes/_User.
    @Test(arguments: DialectCase.families)
    func signUpAnswersTheUserWithoutItsPassword(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            for path in ["users", "classes/_User"] {
                let name = "ada-\(path.count)"
                let signup = try await api.post(
                    dialect.path(path), headers: dialect.client,
                    ["username": .string(name), "password": "pw", "nickname": "A", "mobilePhone": "+8613800000009"])
                #expect(signup.status == .ok, "\(signup)")
                #expect(signup["username"] == .string(name) && signup["nickname"] == "A", "\(signup)")
                #expect(signup["mobilePhone"] == "+8613800000009", "\(signup)")
                #expect(signup["sessionToken"]?.stringValue?.isEmpty == false && signup.objectId != nil, "\(signup)")
                #expect(isCanonicalISODate(signup["createdAt"]?.stringValue), "\(signup)")
                #expect(signup["password"] == nil && !signup.text.contains("\"pw\""), "\(signup)")
                _ = try await api.delete(dialect.path("users/\(signup.objectId ?? "")"), headers: dialect.master)
            }
            // A signup inside a batch answers the same (JS:lib/object.js:1432-1457 maps it onto the user).
            let batch = try await api.post(
                dialect.path("batch"), headers: dialect.client,
                ["requests": [["method": "POST", "path": .string(dialect.path("classes/_User")), "body": ["username": "bea", "password": "pw"]]]])
            let entry = try #require(batch.json?.arrayValue?.first, "\(batch)")
            #expect(entry["username"] == "bea" && entry["sessionToken"] != nil && entry["password"] == nil, "\(entry)")
        }
    }

    // DOC:AccountSystem.md:101-118: GET /2.0/users/<id> with X-ML-AppId and X-ML-Session-Token only;
    // DOC:AccountSystem.md:79-99: GET /2.0/logout the same way → {"success":true}, and the token
    // ends (MyBaaS deletes the user's tokens, BAAS:AppUserService.java:209-211).
    @Test(arguments: DialectCase.families)
    func aSessionAloneSignsInUntilLogout(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let signup = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "hitest", "password": "pw"])
            let id = try #require(signup.objectId, "\(signup)")
            let token = try #require(signup["sessionToken"]?.stringValue)
            let user = try await api.get(dialect.path("users/\(id)"), headers: Self.sessionOnly(dialect, token))
            #expect(user.status == .ok && user.objectId == id && user["username"] == "hitest", "\(user)")
            let me = try await api.get(dialect.path("users/me"), headers: Self.sessionOnly(dialect, token))
            #expect(me.objectId == id, "\(me)")
            let updated = try await api.put(dialect.path("users/\(id)"), headers: Self.sessionOnly(dialect, token), ["nickname": "H"])
            #expect(updated["number"] == 1, "\(updated)")

            let logout = try await api.get(dialect.path("logout"), headers: Self.sessionOnly(dialect, token))
            #expect(logout.status == .ok && logout.json == (dialect.family == "ML" ? ["success": true] : ["number": 1]), "\(logout)")
            expectDialectError(try await api.get(dialect.path("users/\(id)"), headers: Self.sessionOnly(dialect, token)), code: 90100, status: .unauthorized)
            expectDialectError(try await api.get(dialect.path("users/me"), headers: dialect.session(token)), code: 90100, status: .unauthorized)
            expectDialectError(try await api.get(dialect.path("logout"), headers: dialect.session(token)), code: 90100, status: .unauthorized)
            // The next login has a session that works.
            let login = try await api.post(dialect.path("login"), headers: dialect.client, ["username": "hitest", "password": "pw"])
            let fresh = try #require(login["sessionToken"]?.stringValue, "\(login)")
            #expect(fresh != token)
            #expect(try await api.get(dialect.path("users/\(id)"), headers: Self.sessionOnly(dialect, fresh))["nickname"] == "H")
        }
    }
}
