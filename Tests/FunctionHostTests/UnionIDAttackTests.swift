import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 30, finding 1: a UnionID is no secret, so it is followed to its main account, or
/// claimed for one, only from an entry something vouched for, and never from `anonymous`.
/// Each attack runs against the configurations an app may have: nothing configured, an
/// `onAuthData` hook that checks only the WeChat entries it knows, and the operator's trust of
/// every provider.
@Suite struct UnionIDAttackTests {
    /// Ada's WeChat UnionID, which anyone may learn.
    static let adaUnion = "ada-union"

    /// An `onAuthData` hook as an app writes it: it checks the `weixin` entry's token and lets
    /// everything else through (`anonymous` has nothing to check).
    static var weixinHook: FunctionRegistry {
        var functions = FunctionRegistry()
        functions.hooks.onAuthData { request in
            if let weixin = request.object["authData"]?["weixin"], weixin != .null,
                weixin["access_token"] != "issued-by-wechat"
            {
                throw HookError(code: 1, message: "WeChat token rejected.")
            }
        }
        return functions
    }

    /// Runs `body` once per configuration an app may have.
    static func eachConfiguration(_ body: @escaping @Sendable (String, API) async throws -> Void) async throws {
        try await TestServer.run { api in try await body("nothing configured", api) }
        try await TestServer.run(functions: weixinHook) { api in try await body("a hook checking weixin", api) }
        try await TestServer.runTrustingAuthData { api in try await body("every provider trusted", api) }
    }

    /// Ada: a WeChat account with its UnionID, marked as that UnionID's main account, and an
    /// email; made with the master key as a verified login would have made it.
    static func makeAda(_ api: API) async throws -> String {
        let ada = try await api.post(
            "/1.1/users", headers: Headers.master,
            [
                "username": "ada", "password": "pw", "email": "ada@example.com",
                "authData": [
                    "weixin": [
                        "openid": "ada-openid", "access_token": "issued-by-wechat", "unionid": .string(adaUnion),
                        "platform": "weixin",
                    ],
                    "_weixin_unionid": ["uid": .string(adaUnion)],
                ],
            ])
        #expect(ada.status == .created, "\(ada)")
        return try #require(ada.objectId)
    }

    /// The request: an anonymous entry carrying Ada's UnionID. Refused, and nobody's
    /// session is answered, whatever the configuration.
    @Test func anAnonymousEntryCarryingSomeonesUnionIDIsRefused() async throws {
        try await Self.eachConfiguration { configuration, api in
            let ada = try await Self.makeAda(api)
            for extra: [String: JSONValue] in [[:], ["main_account": true]] {
                var entry: [String: JSONValue] = ["id": "anything", "unionid": .string(Self.adaUnion), "platform": "weixin"]
                entry.merge(extra) { _, new in new }
                for path in ["/1.1/users", "/1.1/classes/_User", "/1.1/users?failOnNotExist=true"] {
                    let reply = try await api.post(path, ["authData": ["anonymous": .object(entry)]])
                    #expect(reply.objectId != .some(ada) && reply["sessionToken"] == nil, "\(configuration) \(path): \(reply)")
                    AuthDataVerificationTests.expectUnverified(reply, "anonymous", mentioning: "no UnionID")
                }
            }
            #expect(try await AuthDataVerificationTests.userCount(api) == 1, "\(configuration): nothing created")
        }
    }

    /// A main-account marker sent by a client is a login as that UnionID's main account: only the
    /// server writes one, from a vouched entry.
    @Test func aClientsOwnMainAccountMarkerIsRefused() async throws {
        try await TestServer.run(functions: Self.weixinHook) { api in
            let ada = try await Self.makeAda(api)
            let reply = try await api.post("/1.1/users", ["authData": ["_weixin_unionid": ["uid": .string(Self.adaUnion)]]])
            #expect(reply.objectId != .some(ada) && reply["sessionToken"] == nil, "\(reply)")
            AuthDataVerificationTests.expectUnverified(reply, "_weixin_unionid")
            // Nor may a signed-in user add one, or an anonymous UnionID, to its own account.
            let eve = try await api.post("/1.1/users", ["username": "eve", "password": "pw"])
            let session = Headers.session(try #require(eve["sessionToken"]?.stringValue))
            let id = try #require(eve.objectId)
            for authData: JSONValue in [
                ["_weixin_unionid": ["uid": "fresh-union"]],
                ["anonymous": ["id": "x", "unionid": "fresh-union", "platform": "weixin", "main_account": true]],
            ] {
                expectError(try await api.put("/1.1/users/\(id)", headers: session, ["authData": authData]), code: 251)
            }
            #expect(try await api.get("/1.1/users/\(id)", headers: Headers.master)["authData"] == nil)
        }
    }

    /// The pre-claim: an attacker marks a UnionID its owner hasn't used yet as its own account's,
    /// so that the owner's later verified login would land there. Refused; the owner's login
    /// makes the owner's own account.
    @Test func aUnionIDCantBeClaimedAheadOfItsOwner() async throws {
        try await TestServer.run(functions: Self.weixinHook) { api in
            let claim: JSONValue = [
                "authData": ["anonymous": ["id": "eve-device", "unionid": "bob-union", "platform": "weixin", "main_account": true]],
            ]
            let eve = try await api.post("/1.1/users", claim)
            AuthDataVerificationTests.expectUnverified(eve, "anonymous")
            let bob = try await api.post(
                "/1.1/users",
                [
                    "authData": [
                        "weixin": [
                            "openid": "bob-openid", "access_token": "issued-by-wechat", "unionid": "bob-union",
                            "platform": "weixin", "main_account": true,
                        ],
                    ],
                ])
            #expect(bob.status == .created, "bob's own, new account: \(bob)")
            #expect(bob["authData"]?["_weixin_unionid"] == ["uid": "bob-union"], "\(bob)")
            #expect(try await AuthDataVerificationTests.userCount(api) == 1)
        }
    }

    /// What vouches for a UnionID: the hook, for an entry it handed back; without a hook, a
    /// verifier that proves UnionIDs. A verifier that proves only its openid doesn't.
    @Test func aUnionIDIsFollowedOnlyFromAnEntrySomethingVouchedFor() async throws {
        // The hook passed the weixin entry: its UnionID reaches Ada's main account.
        try await TestServer.run(functions: Self.weixinHook) { api in
            let ada = try await Self.makeAda(api)
            let app2: JSONValue = [
                "authData": [
                    "weixin": [
                        "openid": "ada-openid-2", "access_token": "issued-by-wechat", "unionid": .string(Self.adaUnion),
                        "platform": "weixin",
                    ],
                ],
            ]
            // (Another openid under the same key: the main account is found first, by its UnionID.)
            let login = try await api.post("/1.1/users", app2)
            #expect(login.status == .ok && login.objectId == .some(ada), "\(login)")
        }
        for proves in [false, true] {
            try await TestServer.run(authData: { verification, _ in
                verification.verifiers["partner"] = PartnerVerifier(provesUnionID: proves)
            }) { api in
                let ada = try await Self.makeAda(api)
                let reply = try await api.post(
                    "/1.1/users",
                    ["authData": ["partner": ["uid": "p-1", "token": "signed", "unionid": .string(Self.adaUnion), "platform": "weixin"]]])
                if proves {
                    #expect(reply.status == .ok && reply.objectId == .some(ada), "\(reply)")
                } else {
                    AuthDataVerificationTests.expectUnverified(reply, "partner", mentioning: "UnionID on weixin")
                    #expect(try await AuthDataVerificationTests.userCount(api) == 1)
                }
            }
        }
    }
}

/// A verifier of a made-up provider: a `token` of `signed` proves the account; whether it
/// proves the entry's UnionID too is the test's choice.
struct PartnerVerifier: AuthDataVerifier {
    let provesUnionID: Bool

    func verify(_ entry: JSONValue, at time: Date) throws(DataAPIError) {
        guard entry["token"] == "signed" else { throw AuthDataVerification.refusal("the partner's token is wrong.") }
    }
}
