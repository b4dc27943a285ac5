import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Third-party accounts are trusted only when something verifies them: an `onAuthData` hook, a
/// built-in verifier, or the operator's explicit trust. Over real HTTP.
@Suite struct AuthDataVerificationTests {
    /// How many users there are (0 before the class exists), by the master key.
    static func userCount(_ api: API) async throws -> Int {
        let reply = try await api.get("/1.1/users?count=1&limit=0", headers: Headers.master)
        return Int(reply["count"]?.doubleValue ?? 0)
    }

    /// Checks a 251 refusal naming `provider`.
    static func expectUnverified(
        _ reply: Reply, _ provider: String, mentioning detail: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        expectError(reply, code: 251, status: .badRequest, sourceLocation: sourceLocation)
        let message = reply["error"]?.stringValue ?? ""
        #expect(message.hasPrefix("The \(provider) account can't be verified: "), "\(reply)", sourceLocation: sourceLocation)
        if let detail { #expect(message.contains(detail), "\(reply)", sourceLocation: sourceLocation) }
    }

    @Test func unverifiedLoginSignupAndLinkAreRefusedWithNothingWritten() async throws {
        try await TestServer.run { api in
            let weixin: JSONValue = ["authData": ["weixin": ["openid": "wx-1", "access_token": "t"]]]
            Self.expectUnverified(try await api.post("/1.1/users", weixin), "weixin", mentioning: "--trust-unverified-auth-data weixin")
            Self.expectUnverified(try await api.post("/1.1/users?failOnNotExist=true", weixin), "weixin")
            Self.expectUnverified(try await api.post("/1.1/classes/_User", weixin), "weixin")
            Self.expectUnverified(
                try await api.post("/1.1/users", ["username": "eve", "password": "pw", "authData": ["qq": ["openid": "q"]]]), "qq")
            #expect(try await Self.userCount(api) == 0, "nothing created")

            let ada = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            let id = try #require(ada.objectId)
            let session = Headers.session(try #require(ada["sessionToken"]?.stringValue))
            for path in ["/1.1/users/\(id)", "/1.1/classes/_User/\(id)?fetchWhenSave=true"] {
                Self.expectUnverified(try await api.put(path, headers: session, ["authData": ["github": ["uid": "gh-1"]]]), "github")
            }
            Self.expectUnverified(try await api.put("/1.1/users/\(id)", headers: session, ["authData.github": ["uid": "gh-1"]]), "github")
            let batch = try await api.post(
                "/1.1/batch", headers: session,
                ["requests": [["method": "PUT", "path": .string("/1.1/users/\(id)"), "body": ["authData": ["github": ["uid": "gh-1"]]]]]])
            #expect(batch.json?.arrayValue?.first?["error"]?["code"] == 251, "\(batch)")
            let stored = try await api.get("/1.1/users/\(id)", headers: Headers.master)
            #expect(stored["authData"] == nil, "nothing linked: \(stored)")
            #expect(try await Self.userCount(api) == 1)
        }
    }

    @Test func theMasterKeyUnlinkingAndAnonymousNeedNoProof() async throws {
        try await TestServer.run { api in
            let ada = try await api.post(
                "/1.1/users", headers: Headers.master,
                ["username": "ada", "password": "pw", "authData": ["weixin": ["openid": "wx-1"], "qq": ["openid": "q-1"]]])
            #expect(ada.status == .created, "the operator writes authData as it likes: \(ada)")
            let id = try #require(ada.objectId)
            let login = try await api.post("/1.1/login", ["username": "ada", "password": "pw"])
            let session = Headers.session(try #require(login["sessionToken"]?.stringValue))
            #expect(try await api.put("/1.1/users/\(id)", headers: session, ["authData.weixin": ["__op": "Delete"]]).status == .ok)
            #expect(try await api.put("/1.1/users/\(id)", headers: session, ["authData": ["qq": nil]]).status == .ok)
            let stored = try await api.get("/1.1/users/\(id)", headers: Headers.master)
            #expect(stored["authData"] == [:], "both unlinked: \(stored)")
            let anonymous: JSONValue = ["authData": ["anonymous": ["id": "5c1f6e2a-8d7b-4c3e-9a10-2b3c4d5e6f70"]]]
            let first = try await api.post("/1.1/users", anonymous)
            #expect(first.status == .created, "\(first)")
            #expect(try await api.post("/1.1/users", anonymous).objectId == first.objectId)
        }
    }

    /// The issue's attack: Ada's openid leaked (it's in logs, in apps, and was once answered by
    /// `GET /users/{id}`); knowing it must not log in as her.
    @Test func knowingSomeonesOpenidNoLongerLogsInAsThem() async throws {
        try await TestServer.run { api in
            let ada = try await api.post(
                "/1.1/users", headers: Headers.master,
                ["username": "ada", "password": "pw", "authData": ["weixin": ["openid": "ada-openid", "unionid": "ada-union", "platform": "weixin"], "_weixin_unionid": ["uid": "ada-union"]]])
            #expect(ada.status == .created, "\(ada)")
            let attempts: [JSONValue] = [
                ["weixin": ["openid": "ada-openid"]],
                ["weixin": ["openid": "ada-openid", "access_token": "forged", "expires_in": 7200]],
                ["weixin_app": ["openid": "other", "unionid": "ada-union", "platform": "weixin"]],
                ["_weixin_unionid": ["uid": "ada-union"]],
            ]
            for authData in attempts {
                let reply = try await api.post("/1.1/users", ["authData": authData])
                expectError(reply, code: 251, status: .badRequest)
                #expect(reply["sessionToken"] == nil && reply.objectId == nil, "\(reply)")
            }
            #expect(try await Self.userCount(api) == 1)
        }
    }

    @Test func anOnAuthDataHookIsTheVerifier() async throws {
        var functions = FunctionRegistry()
        functions.hooks.onAuthData { request in
            // The app's own check: here, a token only the real partner issues.
            guard request.object["authData"]?["partner"]?["token"] == "signed-by-partner" else {
                throw HookError(code: 1, message: "Partner token rejected.")
            }
        }
        try await TestServer.run(functions: functions) { api in
            let good: JSONValue = ["authData": ["partner": ["uid": "p-1", "token": "signed-by-partner"]]]
            let first = try await api.post("/1.1/users", good)
            #expect(first.status == .created, "\(first)")
            #expect(try await api.post("/1.1/users", good).objectId == first.objectId, "logs in again")
            let forged = try await api.post("/1.1/users", ["authData": ["partner": ["uid": "p-1", "token": "made-up"]]])
            #expect(forged.status != .ok && forged.status != .created && forged["sessionToken"] == nil, "\(forged)")
        }
    }

    @Test func theOperatorMayTrustEveryProviderOrListedOnes() async throws {
        try await TestServer.runTrustingAuthData { api in
            for authData: JSONValue in [["weixin": ["openid": "wx-1"]], ["anything": ["uid": "a-1"]]] {
                let signup = try await api.post("/1.1/users", ["authData": authData])
                #expect(signup.status == .created, "\(signup)")
            }
        }
        try await TestServer.run(authData: { verification, _ in verification.trustsUnverified = .init(list: "weixin, qq") }) { api in
            #expect(try await api.post("/1.1/users", ["authData": ["weixin": ["openid": "wx-1"]]]).status == .created)
            #expect(try await api.post("/1.1/users", ["authData": ["qq": ["openid": "qq-1"]]]).status == .created)
            Self.expectUnverified(
                try await api.post("/1.1/users", ["authData": ["weibo": ["uid": "wb-1"]]]), "weibo",
                mentioning: "--trust-unverified-auth-data weibo")
            // A UnionID reaches its platform's main account: that platform must be trusted too.
            let union: JSONValue = ["openid": "o-2", "unionid": "u-2", "platform": "weibo", "main_account": true]
            Self.expectUnverified(try await api.post("/1.1/users", ["authData": ["weixin": union]]), "weixin", mentioning: "UnionID on weibo")
            #expect(try await Self.userCount(api) == 2)
        }
    }

    @Test func appleIdentityTokensAreVerified() async throws {
        let apple = try AppleIssuer()
        let clock = TestClock()
        let configure: (inout AuthDataVerification, String) throws -> Void = { verification, directory in
            verification.verifiers[AppleIDVerifier.provider] = try AppleIDVerifier(
                jwksFile: try apple.writeJWKS(in: directory), clientIds: [AppleIssuer.clientId, "com.example.web"])
        }
        try await TestServer.run(authData: configure, clock: clock) { api in
            let soon = clock.now.addingTimeInterval(600)
            let good = AppleIssuer.authData(uid: "001.apple.ada", token: try apple.token(sub: "001.apple.ada", expires: soon))
            let first = try await api.post("/1.1/users", good)
            #expect(first.status == .created && first["sessionToken"] != nil, "\(first)")
            let again = try await api.post("/1.1/users", good)
            #expect(again.status == .ok && again.objectId == first.objectId, "\(again)")

            let forger = try AppleIssuer(kid: apple.kid)
            let refusals: [(String, String)] = [
                (try forger.token(sub: "001.apple.ada", expires: soon), "signature"),
                (try apple.token(sub: "001.apple.ada", expires: soon, aud: "com.other.app"), "another app"),
                (try apple.token(sub: "001.apple.eve", expires: soon), "another Apple account"),
                (try apple.token(sub: "001.apple.ada", expires: soon, issuer: "https://evil.example"), "issued"),
                (try apple.token(sub: "001.apple.ada", expires: soon, kid: "unknown"), "key set"),
                ("not.a-token", "JSON Web Token"),
            ]
            for (token, reason) in refusals {
                Self.expectUnverified(
                    try await api.post("/1.1/users", AppleIssuer.authData(uid: "001.apple.ada", token: token)), "lc_apple", mentioning: reason)
            }
            Self.expectUnverified(
                try await api.post("/1.1/users", ["authData": ["lc_apple": ["uid": "001.apple.ada"]]]), "lc_apple",
                mentioning: "identity_token")
            // A token good a minute ago is refused once it expires on the server's clock.
            let expiring = AppleIssuer.authData(uid: "001.apple.ada", token: try apple.token(sub: "001.apple.ada", expires: clock.now.addingTimeInterval(60)))
            #expect(try await api.post("/1.1/users", expiring).status == .ok)
            clock.advance(minutes: 2)
            Self.expectUnverified(try await api.post("/1.1/users", expiring), "lc_apple", mentioning: "expired")
            // The verifier covers Apple only: other providers still need a hook or trust.
            Self.expectUnverified(try await api.post("/1.1/users", ["authData": ["weixin": ["openid": "wx-1"]]]), "weixin")
            #expect(try await Self.userCount(api) == 1)
        }
    }

    @Test func aVerifiedAppleAccountLinksToASignedInUser() async throws {
        let apple = try AppleIssuer()
        let clock = TestClock()
        try await TestServer.run(
            authData: { verification, directory in
                verification.verifiers[AppleIDVerifier.provider] = try AppleIDVerifier(
                    jwksFile: try apple.writeJWKS(in: directory), clientIds: [AppleIssuer.clientId])
            }, clock: clock
        ) { api in
            let ada = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            let id = try #require(ada.objectId)
            let session = Headers.session(try #require(ada["sessionToken"]?.stringValue))
            let soon = clock.now.addingTimeInterval(600)
            let forged = try AppleIssuer().token(sub: "001.apple.ada", expires: soon)
            Self.expectUnverified(
                try await api.put("/1.1/users/\(id)", headers: session, AppleIssuer.authData(uid: "001.apple.ada", token: forged)),
                "lc_apple")
            let linked = try await api.put(
                "/1.1/users/\(id)", headers: session,
                AppleIssuer.authData(uid: "001.apple.ada", token: try apple.token(sub: "001.apple.ada", expires: soon)))
            #expect(linked.status == .ok, "\(linked)")
            let login = try await api.post(
                "/1.1/users", AppleIssuer.authData(uid: "001.apple.ada", token: try apple.token(sub: "001.apple.ada", expires: soon)))
            #expect(login.status == .ok && login.objectId == .some(id), "\(login)")
        }
    }

    @Test func aKeySetThatCantBeUsedIsRefusedAtStart() throws {
        #expect(throws: DataAPIError.self) { try AppleIDVerifier(jwks: Array("{}".utf8), clientIds: ["a"]) }
        #expect(throws: DataAPIError.self) {
            try AppleIDVerifier(jwks: Array(#"{"keys":[{"kty":"RSA","kid":"k","n":"AQAB","e":"AQAB"}]}"#.utf8), clientIds: ["a"])
        }
        let jwks = Array(try AppleIssuer().jwks().jsonString.utf8)
        #expect(throws: DataAPIError.self) { try AppleIDVerifier(jwks: jwks, clientIds: []) }
        #expect(throws: DataAPIError.self) { try AppleIDVerifier(jwksFile: "/nonexistent/keys.json", clientIds: ["a"]) }
        _ = try AppleIDVerifier(jwks: jwks, clientIds: ["a"])
    }
}

/// The `serve` options, through the built executable: a bad Apple configuration stops it
/// before it starts.
@Suite struct AuthDataOptionTests {
    @Test func serveRefusesAnAppleVerifierItCantUse() async throws {
        let missing = try await CLI.functionhost(
            ["serve", "--trust-unverified-auth-data", "weixin,qq", "--apple-jwks", "/nonexistent/keys.json", "--apple-client-id", "com.example.app"],
            port: 1)
        // The provider list was taken as the option's value: the file is what's refused.
        #expect(missing.status != 0 && missing.errors.contains("--apple-jwks: can't read /nonexistent/keys.json"), "\(missing)")
        let alone = try await CLI.functionhost(["serve", "--trust-unverified-auth-data", "--apple-client-id", "com.example.app"], port: 1)
        #expect(alone.status != 0 && alone.errors.contains("go together"), "\(alone)")
    }
}
