import DataAPI
import Foundation
import HTTPTypes
import Hooks
import TestSupport
import Testing

@testable import FunctionHost

/// The dialects' credentials pass the one authentication step LeanCloud's do, and a dialect
/// path is no way around any check (`las-maxleap-dialects.md` §2, §12).
@Suite struct DialectAuthTests {
    // BAAS:AccessControlServiceImpl.java:218-274: nothing valid → 90102 APPID_AND_KEY_NOT_MATCHED;
    // LASConstants.java:9-43: X-ML-APIKey / X-LAS-ClientKey / X-ZCloud-APIKey, MasterKey headers.
    @Test(arguments: DialectCase.all)
    func keysAuthenticateAndWrongOnesAre90102(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            #expect(try await api.get(dialect.path("classes/Thing"), headers: dialect.client).status == .ok)
            if dialect.family != "ZCloud" {
                #expect(try await api.get(dialect.path("classes/Thing"), headers: dialect.clientKey).status == .ok)
            }
            expectDialectError(try await api.get(dialect.path("classes/Thing"), headers: Headers.none), code: 90102, status: .unauthorized)
            expectDialectError(
                try await api.get(dialect.path("classes/Thing"), headers: dialect.headers(("APIKey", "wrong"))), code: 90102)
            expectDialectError(
                try await api.get(dialect.path("classes/Thing"), headers: dialect.headers(("MasterKey", "key"))), code: 90102)
            // The master key is master: it reads what only the master key may.
            let schemas = try await api.get(dialect.path("classes/_User"), headers: dialect.master)
            #expect(schemas.status == .ok, "\(schemas)")
            let refused = try await api.get(dialect.path("classes/_User"), headers: dialect.client)
            #expect(refused.status.code >= 400 || refused.results.isEmpty, "\(refused)")
        }
    }

    // BAAS:AccessControlServiceImpl.java:325-364: X-ML-Request-Sign: sha256hex(key+ts),ts[,master];
    // DOC:MaxIM.md:1248: MD5(TS + ClientKey),TS; bad sign → 90104 (:161-163). The host's time window applies.
    @Test(arguments: DialectCase.families)
    func signsInBothFormsWithinTheWindow(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let now = DialectSign.now
            for sign in [DialectSign.sha256(key: "key", at: now), DialectSign.md5(key: "key", at: now)] {
                let reply = try await api.get(dialect.path("classes/Thing"), headers: dialect.headers(("Request-Sign", sign)))
                #expect(reply.status == .ok, "\(sign): \(reply)")
            }
            let master = try await api.post(
                dialect.path("classes/_Role"), headers: dialect.headers(("Request-Sign", DialectSign.sha256(key: "master", at: now, master: true))),
                ["name": "admins", "ACL": ["*": ["read": true]]])
            #expect(master.status == .ok, "\(master)")
            // The app key signed as master is no master key; a stale sign is refused.
            expectDialectError(
                try await api.get(
                    dialect.path("classes/Thing"), headers: dialect.headers(("Request-Sign", DialectSign.sha256(key: "key", at: now, master: true)))),
                code: 90104)
            expectDialectError(
                try await api.get(
                    dialect.path("classes/Thing"), headers: dialect.headers(("Request-Sign", DialectSign.sha256(key: "key", at: now - 3_600_000)))),
                code: 90104)
            expectDialectError(
                try await api.get(dialect.path("classes/Thing"), headers: dialect.headers(("Request-Sign", "nonsense"))), code: 90104)
        }
    }

    // LeanCloud's own path keeps LeanCloud's sign only: MaxLeap's SHA-256 form is not a LeanCloud credential.
    @Test func leanCloudPathsDoNotTakeTheDialectSign() async throws {
        try await TestServer.run { api in
            let sign = DialectSign.sha256(key: "key", at: DialectSign.now)
            expectError(try await api.get("/1.1/classes/Thing", headers: Headers.make([("X-LC-Id", "app"), ("X-LC-Sign", sign)])), code: 401)
        }
    }

    // JS:lib/utils.js:426-446: _MasterKey / _ApplicationKey travel in bodies; here they are never credentials.
    @Test(arguments: DialectCase.families)
    func bodyCredentialsAreIgnored(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let locked = try await api.create("Vault", ["secret": 1, "ACL": [:]], headers: Headers.master)
            // A client's body naming the master key reads nothing more.
            let reply = try await api.post(
                dialect.path("classes/Vault/query"), headers: dialect.client,
                ["where": [:], "_MasterKey": "master", "_ApplicationKey": "master,master"])
            #expect(reply.status == .ok && reply.results.isEmpty, "\(reply)")
            // Body credentials alone don't authenticate (a text/plain body included).
            let bare = try await api.send(
                .post, dialect.path("classes/Vault/query"), headers: Headers.make([("Content-Type", "text/plain")]),
                body: #"{"_ApplicationId":"app","_ApplicationKey":"key","_MasterKey":"master"}"#)
            expectDialectError(bare, code: 90102)
            let updated = try await api.put(
                dialect.path("classes/Vault/\(locked)"), headers: dialect.client, ["secret": 2, "_MasterKey": "master"])
            expectDialectError(updated, code: 119, status: .forbidden)
            #expect(try await api.fetch("Vault", locked, headers: Headers.master)["secret"] == 1)
        }
    }

    // Mixed families: X-LC-Key: master,master next to X-ML-APIKey picks no identity at all.
    @Test(arguments: DialectCase.families)
    func mixedHeaderFamiliesAreRefused(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            var mixed = dialect.client
            mixed[HTTPField.Name("X-LC-Key")!] = "master,master"
            expectDialectError(try await api.get(dialect.path("classes/_User"), headers: mixed), code: 90102)
            var session = dialect.client
            session[HTTPField.Name("X-LC-Session")!] = "anything"
            expectDialectError(try await api.get(dialect.path("classes/Thing"), headers: session), code: 90102)
            // On LeanCloud's prefix, dialect headers make the request a dialect request too.
            var lc = Headers.master
            lc[HTTPField.Name("X-\(dialect.family)-APIKey")!] = "key"
            expectDialectError(try await api.get("/1.1/classes/_User", headers: lc), code: 90102)
        }
    }

    // las-maxleap-dialects.md §2.1: X-ML-Request-From-Cloudcode, X-ML-CCode-Mapping ("call comes from cloud code", skip hooks).
    @Test(arguments: DialectCase.families)
    func clientsCannotSkipHooks(dialect: DialectCase) async throws {
        var functions = FunctionRegistry()
        functions.hooks.beforeSave("Order") { request in
            guard (request.object["quantity"]?.intValue ?? 0) > 0 else { throw HookError(code: 142, message: "No quantity.") }
        }
        try await TestServer.run(functions: functions) { api in
            for skip in ["Request-From-Cloudcode", "CCode-Mapping"] {
                for family in ["ML", "LAS", "ZCloud"] {
                    var headers = dialect.client
                    headers[HTTPField.Name("X-\(family)-\(skip)")!] = skip == "CCode-Mapping" ? "1" : "true"
                    let reply = try await api.post(dialect.path("classes/Order"), headers: headers, ["quantity": 0])
                    expectDialectError(reply, code: 142)
                }
            }
            // __ignore_hooks stays the master key's, as on LeanCloud.
            expectDialectError(
                try await api.post(dialect.path("classes/Order"), headers: dialect.client, ["quantity": 0, "__ignore_hooks": ["beforeSave"]]),
                code: 119)
            #expect(try await api.count("Order") == nil)
        }
    }

    // Same access control: a user's object with its ACL, another user and an anonymous client.
    @Test(arguments: DialectCase.families)
    func aclsAndClassPermissionsHoldOnDialectPaths(dialect: DialectCase) async throws {
        try await TestServer.run { api in
            let ada = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "ada", "password": "pw"])
            let bob = try await api.post(dialect.path("users"), headers: dialect.client, ["username": "bob", "password": "pw"])
            let adaToken = try #require(ada["sessionToken"]?.stringValue, "\(ada)")
            let bobToken = try #require(bob["sessionToken"]?.stringValue, "\(bob)")
            let adaId = try #require(ada.objectId)
            let note = try await api.post(
                dialect.path("classes/Diary"), headers: dialect.session(adaToken),
                ["text": "mine", "ACL": .object([adaId: ["read": true, "write": true]])])
            let id = try #require(note.objectId, "\(note)")
            #expect(try await api.get(dialect.path("classes/Diary/\(id)"), headers: dialect.session(adaToken))["text"] == "mine")
            #expect(try await api.get(dialect.path("classes/Diary/\(id)"), headers: dialect.session(bobToken)).json == [:])
            #expect(try await api.get(dialect.path("classes/Diary/\(id)"), headers: dialect.client).json == [:])
            expectDialectError(
                try await api.put(dialect.path("classes/Diary/\(id)"), headers: dialect.session(bobToken), ["text": "x"]), code: 119)
            let batch = try await api.post(
                dialect.path("batch"), headers: dialect.session(bobToken),
                ["requests": [["method": "delete", "path": .string("classes/Diary/\(id)")]]])
            #expect(batch.json?.arrayValue?.first?["number"] != 1, "\(batch)")
            // A user is changed by itself only (BAAS:AppUserResource.java:78-157).
            let other = try await api.put(dialect.path("users/\(adaId)"), headers: dialect.session(bobToken), ["nickname": "x"])
            #expect(other.status.code >= 400, "\(other)")
            #expect(try await api.fetch("Diary", id, headers: Headers.master)["text"] == "mine")
        }
    }

    // The client-address rate limit is the same for a dialect path (429 in the dialect's shape).
    @Test func rateLimitsApply() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.rateLimits.perClient = 0.001 }) { api in
            let dialect = DialectCase.all[0]
            _ = try await api.get(dialect.path("classes/Thing"), headers: dialect.client)
            let limited = try await api.get(dialect.path("classes/Thing"), headers: dialect.client)
            expectDialectError(limited, code: 429, status: .tooManyRequests)
            #expect(limited.header("Retry-After") != nil)
        }
    }
}
