import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// A dialect request may prove the app with a session instead of a key (MaxLeap's docs' curls).
/// An attacker's view of that: the session must be a live one of this app's users, and it buys
/// exactly what the same user with the app's key gets, never more.
@Suite struct DialectSessionAttackTests {
    // What ada reads and writes with her session alone equals what she gets with the key too:
    // bob's private object, the user list (own row only), bob's user, writes to and deletes of bob's.
    @Test(arguments: DialectCase.families)
    func aSessionAloneGetsNoMoreThanWithTheKey(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let ada = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "ada", "password": "pw"])
            let bob = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "bob", "password": "pw", "email": "bob@example.com"])
            let adaToken = try #require(ada["sessionToken"]?.stringValue, "\(ada)")
            let bobId = try #require(bob.objectId, "\(bob)")
            let secret = try await api.create("Vault", ["text": "bob's secret", "ACL": .object([bobId: ["read": true, "write": true]])], headers: Headers.master)
            _ = try await api.create("Vault", ["text": "public", "ACL": ["*": ["read": true]]], headers: Headers.master)

            let alone = DialectSessionTests.sessionOnly(dialect, adaToken)
            let keyed = dialect.session(adaToken)
            let requests: [(HTTPRequest.Method, String, String?)] = [
                (.get, "classes/Vault/\(secret)", nil),
                (.get, "classes/Vault", nil),
                (.post, "classes/Vault/query", #"{"where":{}}"#),
                (.get, "users", nil),
                (.get, "users/\(bobId)", nil),
                (.put, "users/\(bobId)", #"{"nickname":"x"}"#),
                (.put, "classes/Vault/\(secret)", #"{"text":"x"}"#),
                (.delete, "classes/Vault/\(secret)", nil),
                (.delete, "users/\(bobId)", nil),
                (.get, "classes/_Installation", nil),
            ]
            for (method, route, body) in requests {
                let withoutKey = try await api.send(method, dialect.path(route), headers: alone, body: body)
                let withKey = try await api.send(method, dialect.path(route), headers: keyed, body: body)
                #expect(withoutKey.status == withKey.status && withoutKey.json == withKey.json, "\(method) \(route): \(withoutKey) vs \(withKey)")
                #expect(!withoutKey.text.contains("bob's secret") && !withoutKey.text.contains("bob@example.com"), "\(route): \(withoutKey)")
            }
            #expect(try await api.fetch("Vault", secret, headers: Headers.master)["text"] == "bob's secret")
            let bobNow = try await api.fetch("_User", bobId, headers: Headers.master)
            #expect(bobNow["username"] == "bob" && bobNow["nickname"] == nil, "\(bobNow)")
        }
    }

    // The session stands in for the key only when it is a live session of this app's users, with
    // this app's id, in a dialect; anything else is refused before any route runs.
    @Test func onlyALiveSessionOfThisAppStandsInForTheKey() async throws {
        try await TestServer.run { api in
            let dialect = DialectCase.all[0]
            let signup = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "ada", "password": "pw"])
            let token = try #require(signup["sessionToken"]?.stringValue, "\(signup)")
            let id = try #require(signup.objectId)
            let path = dialect.path("users/\(id)")
            #expect(try await api.get(path, headers: DialectSessionTests.sessionOnly(dialect, token)).status == .ok)

            // Another app's id with this app's session; no app id at all.
            expectDialectError(try await api.get(path, headers: Headers.make([("X-ML-AppId", "other"), ("X-ML-Session-Token", token)])), code: 90102, status: .unauthorized)
            expectDialectError(try await api.get(path, headers: Headers.make([("X-ML-Session-Token", token)])), code: 90102, status: .unauthorized)
            // A token nobody holds, an empty one, one in the query only.
            expectDialectError(try await api.get(path, headers: DialectSessionTests.sessionOnly(dialect, "forged")), code: 90100, status: .unauthorized)
            expectDialectError(try await api.get(path, headers: DialectSessionTests.sessionOnly(dialect, "")), code: 90102, status: .unauthorized)
            expectDialectError(try await api.get(path + "?session_token=forged", headers: dialect.headers()), code: 90100, status: .unauthorized)
            // A wrong key or master key next to a good session is still a wrong key.
            expectDialectError(try await api.get(path, headers: dialect.headers(("APIKey", "wrong"), ("Session-Token", token))), code: 90102, status: .unauthorized)
            let wrongMaster = try await api.get(dialect.path("users"), headers: dialect.headers(("MasterKey", "wrong"), ("Session-Token", token)))
            expectDialectError(wrongMaster, code: 90102, status: .unauthorized)
            // LeanCloud's protocol wants the key with a session.
            expectError(try await api.get("/1.1/users/\(id)", headers: Headers.make([("X-LC-Id", "app"), ("X-LC-Session", token)])), code: 401, status: .unauthorized)
            // Nor does a stray dialect header, or a dialect's path, turn LeanCloud's headers into
            // a dialect's: the session stands in only beside the dialect's own app id header.
            let stray = Headers.make([("X-LC-Id", "app"), ("X-LC-Session", token), ("X-ML-Fid", "1")])
            expectDialectError(try await api.get("/1.1/users/\(id)", headers: stray), code: 90102, status: .unauthorized)
            let leanCloudOnDialectPath = Headers.make([("X-LC-Id", "app"), ("X-LC-Session", token)])
            expectDialectError(try await api.get(path, headers: leanCloudOnDialectPath), code: 90102, status: .unauthorized)

            // A session of another app (another server's users) is no session here.
            try await TestServer.run { other in
                let elsewhere = try await other.post(dialect.path("users"), headers: dialect.client, ["username": "eve", "password": "pw"])
                let foreign = try #require(elsewhere["sessionToken"]?.stringValue, "\(elsewhere)")
                expectDialectError(try await api.get(dialect.path("users/me"), headers: DialectSessionTests.sessionOnly(dialect, foreign)), code: 90100, status: .unauthorized)
            }
            // A refreshed session's old token is no credential either.
            let refreshed = try await api.put("/1.1/users/\(id)/refreshSessionToken", headers: Headers.session(token), [:])
            #expect(refreshed["sessionToken"]?.stringValue != token, "\(refreshed)")
            expectDialectError(try await api.get(path, headers: DialectSessionTests.sessionOnly(dialect, token)), code: 90100, status: .unauthorized)
        }
    }
}
