import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import FunctionHost

/// A named set of request headers, for parameterized tests.
struct HeaderCase: Sendable, CustomTestStringConvertible {
    let name: String
    let pairs: [Pair]
    struct Pair: Sendable {
        let name: String
        let value: String
    }

    init(_ name: String, _ pairs: [(String, String)]) {
        self.name = name
        self.pairs = pairs.map { Pair(name: $0.0, value: $0.1) }
    }

    var headers: HTTPFields { Headers.make(pairs.map { ($0.name, $0.value) }) }
    var testDescription: String { name }
}

/// Who a request is, as the server decides it: `X-LC-*`, signatures, legacy headers and
/// credentials in `text/plain` bodies.
@Suite struct AuthTests {
    static let unauthorizedBody = #"{"code":401,"error":"Unauthorized."}"#

    /// A signature `md5(timestamp + key),timestamp[,master]`.
    static func sign(_ key: String, master: Bool = false, uppercase: Bool = false) -> String {
        let timestamp = String(ObjectID.currentMilliseconds())
        let digest = MD5.hex(timestamp + key)
        return (uppercase ? digest.uppercased() : digest) + "," + timestamp + (master ? ",master" : "")
    }

    /// Whether the headers authenticate, and whether as master: a read needs any valid key, a
    /// write to `_Role` through `/classes` needs the master key.
    static func access(_ api: API, _ headers: HTTPFields) async throws -> (authenticated: Bool, master: Bool) {
        let read = try await api.get("/1.1/classes/_Role", headers: headers)
        if read.status == .unauthorized {
            #expect(read.text == unauthorizedBody)
            return (false, false)
        }
        #expect(read.status == .ok, "\(read)")
        let write = try await api.post(
            "/1.1/classes/_Role", headers: headers, ["name": .string(UUID().uuidString)])
        if write.status == .created { return (true, true) }
        expectError(write, code: 119, status: .forbidden)
        return (true, false)
    }

    @Test func md5HelperMatchesKnownDigests() {
        #expect(MD5.hex("") == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MD5.hex("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(MD5.hex("The quick brown fox jumps over the lazy dog") == "9e107d9d372bb6826bd81d3542a419d6")
        #expect(
            MD5.hex(String(repeating: "1234567890", count: 8))
                == "57edf4a22be3c955ac49da2e2107b67a")
    }

    static let clientCases: [HeaderCase] = [
        HeaderCase("X-LC-Id + X-LC-Key", [("X-LC-Id", "app"), ("X-LC-Key", "key")]),
        HeaderCase("X-LC-Sign", [("X-LC-Id", "app"), ("X-LC-Sign", sign("key"))]),
        HeaderCase("X-LC-Sign in uppercase hex", [("X-LC-Id", "app"), ("X-LC-Sign", sign("key", uppercase: true))]),
        HeaderCase("X-AVOSCloud-Request-Sign", [("X-LC-Id", "app"), ("X-AVOSCloud-Request-Sign", sign("key"))]),
        HeaderCase(
            "X-AVOSCloud-Application-Id/-Key",
            [("X-AVOSCloud-Application-Id", "app"), ("X-AVOSCloud-Application-Key", "key")]),
        HeaderCase("X-Uluru-Application-Id/-Key", [("X-Uluru-Application-Id", "app"), ("X-Uluru-Application-Key", "key")]),
        HeaderCase(
            "X-Parse-Application-Id + X-Parse-REST-API-Key",
            [("X-Parse-Application-Id", "app"), ("X-Parse-REST-API-Key", "key")]),
        // LeanEngine accepts the bare master key as a key, without master rights.
        HeaderCase("master key without ,master", [("X-LC-Id", "app"), ("X-LC-Key", "master")]),
    ]

    @Test(arguments: clientCases)
    func clientCredentialsAuthenticateWithoutMasterRights(_ credentials: HeaderCase) async throws {
        try await TestServer.run { api in
            let access = try await Self.access(api, credentials.headers)
            #expect(access.authenticated)
            #expect(!access.master)
            // And they can write ordinary classes.
            let created = try await api.post("/1.1/classes/Todo", headers: credentials.headers, ["title": "x"])
            #expect(created.status == .created, "\(created)")
        }
    }

    static let masterCases: [HeaderCase] = [
        HeaderCase("X-LC-Key master,master", [("X-LC-Id", "app"), ("X-LC-Key", "master,master")]),
        HeaderCase("X-LC-Sign ,master", [("X-LC-Id", "app"), ("X-LC-Sign", sign("master", master: true))]),
        HeaderCase(
            "X-AVOSCloud-Master-Key", [("X-AVOSCloud-Application-Id", "app"), ("X-AVOSCloud-Master-Key", "master")]),
        HeaderCase(
            "X-AVOSCloud-Master-Key with an app key",
            [
                ("X-AVOSCloud-Application-Id", "app"), ("X-AVOSCloud-Application-Key", "key"),
                ("X-AVOSCloud-Master-Key", "master"),
            ]),
        HeaderCase("X-Parse-Master-Key", [("X-Parse-Application-Id", "app"), ("X-Parse-Master-Key", "master")]),
    ]

    @Test(arguments: masterCases)
    func masterCredentialsGrantMasterRights(_ credentials: HeaderCase) async throws {
        try await TestServer.run { api in
            let access = try await Self.access(api, credentials.headers)
            #expect(access.authenticated)
            #expect(access.master)
        }
    }

    static let rejectedCases: [HeaderCase] = [
        HeaderCase("no credentials", []),
        HeaderCase("id only", [("X-LC-Id", "app")]),
        HeaderCase("key only", [("X-LC-Key", "key")]),
        HeaderCase("wrong id", [("X-LC-Id", "other"), ("X-LC-Key", "key")]),
        HeaderCase("wrong key", [("X-LC-Id", "app"), ("X-LC-Key", "nope")]),
        HeaderCase("key prefix", [("X-LC-Id", "app"), ("X-LC-Key", "ke")]),
        HeaderCase("wrong master", [("X-LC-Id", "app"), ("X-LC-Key", "nope,master")]),
        HeaderCase("app key claimed as master", [("X-LC-Id", "app"), ("X-LC-Key", "key,master")]),
        HeaderCase("master key of another app", [("X-LC-Id", "other"), ("X-LC-Key", "master,master")]),
        HeaderCase("sign of a wrong key", [("X-LC-Id", "app"), ("X-LC-Sign", sign("nope"))]),
        HeaderCase("sign of the app key claimed as master", [("X-LC-Id", "app"), ("X-LC-Sign", sign("key", master: true))]),
        HeaderCase("sign of the master key without ,master", [("X-LC-Id", "app"), ("X-LC-Sign", sign("master"))]),
        HeaderCase("sign without timestamp", [("X-LC-Id", "app"), ("X-LC-Sign", MD5.hex("key"))]),
        HeaderCase("sign with a tampered timestamp", [("X-LC-Id", "app"), ("X-LC-Sign", MD5.hex("1key") + ",2")]),
        HeaderCase(
            "AVOSCloud wrong key", [("X-AVOSCloud-Application-Id", "app"), ("X-AVOSCloud-Application-Key", "nope")]),
        HeaderCase(
            "AVOSCloud wrong master key",
            [
                ("X-AVOSCloud-Application-Id", "app"), ("X-AVOSCloud-Application-Key", "key"),
                ("X-AVOSCloud-Master-Key", "nope"),
            ]),
        HeaderCase("Parse wrong REST key", [("X-Parse-Application-Id", "app"), ("X-Parse-REST-API-Key", "nope")]),
        HeaderCase("Parse wrong master key", [("X-Parse-Application-Id", "app"), ("X-Parse-Master-Key", "nope")]),
        HeaderCase("hook key is not an app key", [("X-LC-Id", "app"), ("X-LC-Key", "hook")]),
    ]

    @Test(arguments: rejectedCases)
    func wrongOrMissingCredentialsAre401(_ credentials: HeaderCase) async throws {
        try await TestServer.run { api in
            let headers = credentials.headers
            let replies = [
                try await api.get("/1.1/classes/Todo", headers: headers),
                try await api.post("/1.1/classes/Todo", headers: headers, ["title": "x"]),
                try await api.put("/1/classes/Todo/abc", headers: headers, ["title": "x"]),
                try await api.delete("/1.1/classes/Todo/abc", headers: headers),
                try await api.post("/1.1/batch", headers: headers, ["requests": []]),
            ]
            for reply in replies {
                #expect(reply.status == .unauthorized)
                #expect(reply.text == Self.unauthorizedBody)
            }
            // Nothing was written: the class still doesn't exist.
            #expect(try await api.count("Todo") == nil)
        }
    }

    // MARK: text/plain bodies

    static let textPlain = Headers.make([("Content-Type", "text/plain;charset=UTF-8")])

    @Test func textPlainBodyCarriesTheApplicationKeys() async throws {
        try await TestServer.run { api in
            let created = try await api.send(
                .post, "/1.1/classes/Todo", headers: Self.textPlain,
                body: #"{"_ApplicationId":"app","_ApplicationKey":"key","title":"from a browser"}"#)
            #expect(created.status == .created, "\(created)")
            let id = try #require(created.objectId)
            #expect(try await api.fetch("Todo", id)["title"] == "from a browser")

            // A tunneled GET (`_method`) is a query.
            let found = try await api.send(
                .post, "/1.1/classes/Todo", headers: Self.textPlain,
                body: #"{"_method":"GET","_ApplicationId":"app","_ApplicationKey":"key","where":{"title":"from a browser"}}"#)
            #expect(found.status == .ok, "\(found)")
            #expect(found.results.map { $0["objectId"] } == [.string(id)])
        }
    }

    @Test func textPlainBodyMasterKeyGrantsMasterRights() async throws {
        try await TestServer.run { api in
            let created = try await api.send(
                .post, "/1.1/classes/_Role", headers: Self.textPlain,
                body: #"{"_ApplicationId":"app","_MasterKey":"master","name":"root"}"#)
            #expect(created.status == .created, "\(created)")
            let withAppKey = try await api.send(
                .post, "/1.1/classes/_Role", headers: Self.textPlain,
                body: #"{"_ApplicationId":"app","_ApplicationKey":"key","name":"other"}"#)
            expectError(withAppKey, code: 119, status: .forbidden)
        }
    }

    @Test(arguments: [
        #"{"_ApplicationId":"app","_ApplicationKey":"nope","title":"x"}"#,
        #"{"_ApplicationId":"other","_ApplicationKey":"key","title":"x"}"#,
        #"{"_ApplicationId":"app","title":"x"}"#,
        #"{"_ApplicationId":"app","_MasterKey":"nope","title":"x"}"#,
        #"{"title":"x"}"#,
        #"not json"#,
    ])
    func textPlainBodyWithWrongKeysIs401(body: String) async throws {
        try await TestServer.run { api in
            let reply = try await api.send(.post, "/1.1/classes/Todo", headers: Self.textPlain, body: body)
            #expect(reply.status == .unauthorized)
            #expect(reply.text == Self.unauthorizedBody)
            #expect(try await api.count("Todo") == nil)
        }
    }

    @Test func keysInAJSONBodyDoNotAuthenticate() async throws {
        try await TestServer.run { api in
            // Only text/plain bodies carry credentials; a JSON body needs headers.
            let reply = try await api.send(
                .post, "/1.1/classes/Todo", headers: Headers.make([("Content-Type", "application/json")]),
                body: #"{"_ApplicationId":"app","_ApplicationKey":"key","title":"x"}"#)
            #expect(reply.status == .unauthorized)
            #expect(reply.text == Self.unauthorizedBody)
        }
    }

    @Test func transportCredentialsInABodyAreNotStoredAsData() async throws {
        try await TestServer.run { api in
            let created = try await api.send(
                .post, "/1.1/classes/Todo", headers: Self.textPlain,
                body: #"{"_ApplicationId":"app","_ApplicationKey":"key","_MasterKey":"master","title":"x"}"#)
            #expect(created.status == .created, "\(created)")
            let object = try await api.fetch("Todo", try #require(created.objectId))
            #expect(object["title"] == "x")
            // Credentials are transport, not data: stored, they would be served to every reader.
            #expect(object["_ApplicationId"] == nil)
            #expect(object["_ApplicationKey"] == nil)
            #expect(object["_MasterKey"] == nil)
        }
    }
}
