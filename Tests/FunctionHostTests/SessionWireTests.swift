import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// Which session token a request acts with, and what ends one, as the Python SDK 3.0.2 and the
/// PHP SDK send their requests and their test suites expect LeanCloud to answer.
@Suite struct SessionWireTests {
    /// The Python SDK's headers (`leancloud/client.py:85-111`): `X-LC-Id`, `X-LC-Prod: 1`, a sign of
    /// the app key in milliseconds, its User-Agent, and the current user's `X-LC-Session`.
    static func python(session: String?) -> HTTPFields {
        var pairs = [
            ("Content-Type", "application/json;charset=utf-8"), ("X-LC-Id", "app"), ("X-LC-Prod", "1"),
            ("User-Agent", "AVOS Cloud python-3.0.2 SDK (3.11)"), ("X-LC-Sign", DialectSign.md5(key: "key", at: DialectSign.now)),
        ]
        if let session { pairs.append(("X-LC-Session", session)) }
        return Headers.make(pairs)
    }

    /// The PHP SDK's headers (`src/LeanCloud/Client.php:110-130,251-276`): the sign's timestamp
    /// in seconds, and the stored session token as `X-LC-Session`.
    static func php(session: String?) -> HTTPFields {
        var pairs = [
            ("X-LC-Id", "app"), ("Content-Type", "application/json;charset=utf-8"), ("Accept-Encoding", "gzip, deflate"),
            ("User-Agent", "LeanCloud PHP SDK 0.14.2"), ("X-LC-Prod", "1"),
            ("X-LC-Sign", DialectSign.md5(key: "key", at: DialectSign.now / 1000)),
        ]
        if let session { pairs.append(("X-LC-Session", session)) }
        return Headers.make(pairs)
    }

    // Python SDK 3.0.2 `User.is_authenticated` (`leancloud/user.py:296-311`) sends
    // `GET /1.1/users/me?session_token=<its token>` while the thread's current user's token rides in
    // `X-LC-Session`; its `test_is_authenticated` expects 211 (False) for "invalid-session-token".
    // PHP `User::become` (`src/LeanCloud/User.php:291-299`) sends the same query.
    @Test func theQueryTokenDecidesOverTheHeader() async throws {
        try await TestServer.run { api in
            let ada = try await api.post("/1.1/users", headers: Self.python(session: nil), ["username": "ada", "password": "pw"])
            let adaToken = try #require(ada["sessionToken"]?.stringValue, "\(ada)")
            let adaId = try #require(ada.objectId)
            let bob = try await api.post("/1.1/users", headers: Self.python(session: nil), ["username": "bob", "password": "pw"])
            let bobToken = try #require(bob["sessionToken"]?.stringValue, "\(bob)")

            let stale = try await api.get("/1.1/users/me?session_token=invalid-session-token", headers: Self.python(session: adaToken))
            expectError(stale, code: 211, status: .badRequest)
            let other = try await api.get("/1.1/users/me?session_token=\(bobToken)", headers: Self.python(session: adaToken))
            #expect(other.status == .ok && other["username"] == "bob" && other["sessionToken"] == .string(bobToken), "\(other)")
            // Without a header (PHP's `become` before a user is current), and an empty query
            // parameter, which names no token: the header's counts.
            #expect(try await api.get("/1.1/users/me?session_token=\(adaToken)", headers: Self.php(session: nil))["username"] == "ada")
            #expect(try await api.get("/1.1/users/me?session_token=", headers: Self.php(session: adaToken))["username"] == "ada")

            // The token is resolved once, for the whole request: a write under a stale query token
            // is not ada's, whatever her header says.
            let write = try await api.put("/1.1/users/\(adaId)?session_token=invalid-session-token", headers: Self.python(session: adaToken), ["nickname": "x"])
            expectError(write, code: 206, status: .badRequest)
            let asBob = try await api.put("/1.1/users/\(adaId)?session_token=\(bobToken)", headers: Self.python(session: adaToken), ["nickname": "x"])
            expectError(asBob, code: 206, status: .badRequest)
            #expect(try await api.fetch("_User", adaId, headers: Headers.master)["nickname"] == nil)
        }
    }

    // PHP SDK `User::logOut` (`src/LeanCloud/User.php:344-354`) sends `POST /1.1/logout` with body
    // `null` and the session, ignoring the answer; its `testCircularGetCurrentUser` then sets the
    // same token again and expects `become` (users/me) to find the user, and
    // `testFindUserWithSession` queries `_User` signed in. The Python SDK's `logout` sends nothing
    // (`leancloud/user.py:157-161`). LeanCloud keeps one token per user; only
    // `refreshSessionToken` (`PUT /1.1/users/{id}/refreshSessionToken`, body `null` from both SDKs)
    // or a password change ends it.
    @Test func logOutLeavesTheTokenWorkingAndRefreshEndsIt() async throws {
        try await TestServer.run { api in
            let signup = try await api.post("/1.1/users", headers: Self.php(session: nil), ["username": "alice", "password": "blabla"])
            let id = try #require(signup.objectId, "\(signup)")
            let login = try await api.post("/1.1/login", headers: Self.php(session: nil), ["username": "alice", "password": "blabla"])
            let token = try #require(login["sessionToken"]?.stringValue, "\(login)")

            let logout = try await api.send(.post, "/1.1/logout", headers: Self.php(session: token), body: "null")
            #expect(logout.status == .ok && logout.json == [:], "\(logout)")
            let become = try await api.get("/1.1/users/me?session_token=\(token)", headers: Self.php(session: token))
            #expect(become.status == .ok && become.objectId == id && become["username"] == "alice", "\(become)")
            let users = try await api.get("/1.1/classes/_User?limit=1", headers: Self.php(session: token))
            #expect(users.status == .ok && users.results.map { $0["objectId"] } == [.string(id)], "\(users)")
            // Logging in again gives the same, still valid, token.
            let again = try await api.post("/1.1/login", headers: Self.php(session: nil), ["username": "alice", "password": "blabla"])
            #expect(again["sessionToken"] == .string(token), "\(again)")

            let refreshed = try await api.send(.put, "/1.1/users/\(id)/refreshSessionToken", headers: Self.python(session: token), body: "null")
            let fresh = try #require(refreshed["sessionToken"]?.stringValue, "\(refreshed)")
            #expect(fresh != token)
            expectError(try await api.get("/1.1/users/me?session_token=\(token)", headers: Self.python(session: nil)), code: 211, status: .badRequest)
            #expect(try await api.get("/1.1/users/me", headers: Self.python(session: fresh))["username"] == "alice")
        }
    }
}
