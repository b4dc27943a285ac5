import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Attacks on the console: its API is the master key's, so every request without a live
/// session of its own origin is refused, whatever keys it carries, and its sessions are reached
/// by no data path, not even with the master key or a console session.
@Suite struct ConsoleAttackTests {
    /// Requests of each kind the console's API serves.
    static let probes: [(HTTPRequest.Method, String, JSONValue?)] = [
        (.get, "/console/api/session", nil),
        (.post, "/console/api/logout", [:]),
        (.get, "/console/api/1.1/schemas", nil),
        (.get, "/console/api/1.1/classes/_Outbox", nil),
        (.post, "/console/api/1.1/classes/Todo", ["title": "x"]),
        (.delete, "/console/api/1.1/classes/Todo/abc", nil),
        (.get, "/console/api/1.1/engine/variables?environment=production", nil),
        (.post, "/console/api/1.1/batch", ["requests": []]),
    ]

    @Test func withoutALiveSessionEveryRequestIsRefused() async throws {
        let clock = TestClock()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.clock = { clock.now } }) { api in
            let expired = try await ConsoleBrowser.loggedIn(api)
            clock.advance(minutes: 61)
            let live = try await ConsoleBrowser.loggedIn(api)
            let forged = String(repeating: "ab", count: 32)
            let cookies: [String?] = [
                nil, "fh_console=", "fh_console=\(forged)", "fh_console=\(expired.sessionID)",
                "fh_console=\(live.sessionID.uppercased())", "fh_console=\(live.sessionID)x", "fh_console=\(String(repeating: "a", count: 5000))",
                // The record's id (what a leaked database holds) is not a session id.
                "fh_console=\(ConsoleSessions.key(of: live.sessionID, masterKey: TestServer.keys.masterKey))",
                "other=\(live.sessionID)",
            ]
            for cookie in cookies {
                for (method, path, body) in Self.probes {
                    var pairs = [("Origin", ConsoleBrowser.origin), ("X-Console-CSRF", live.csrf)]
                    if let cookie { pairs.append(("Cookie", cookie)) }
                    let reply = try await api.send(method, path, headers: Headers.make(pairs), body: body?.jsonString)
                    expectError(reply, code: 401, status: .unauthorized)
                    #expect(reply["error"] == "Unauthorized.", "\(cookie ?? "none") \(path): \(reply)")
                }
            }
            #expect(try await api.find("Todo", headers: Headers.master).results.isEmpty)
        }
    }

    @Test func keysOpenNothingInTheConsole() async throws {
        try await TestServer.run { api in
            _ = try await ConsoleBrowser.loggedIn(api)
            // A master signature good now, on the API.
            let now = String(Int64(Date().timeIntervalSince1970 * 1000))
            let sign = "\(MD5.hex(now + "master")),\(now),master"
            for keys in [
                Headers.client, Headers.master, Headers.make([("X-LC-Id", "app"), ("X-LC-Sign", sign)]),
                Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "master,master"), ("Origin", ConsoleBrowser.origin)]),
                Headers.make([("X-Parse-Application-Id", "app"), ("X-Parse-Master-Key", "master")]),
                Headers.make([("X-LC-Hook-Key", "hook")]),
            ] {
                for (method, path, body) in Self.probes {
                    let reply = try await api.send(method, path, headers: keys, body: body?.jsonString)
                    expectError(reply, code: 401, status: .unauthorized)
                }
            }
            // `_ApplicationId` in a text/plain body either.
            let plain = try await api.send(
                .post, "/console/api/1.1/classes/Todo", headers: Headers.make([("Content-Type", "text/plain")]),
                body: #"{"_ApplicationId":"app","_MasterKey":"master","title":"x"}"#)
            expectError(plain, code: 401, status: .unauthorized)
        }
    }

    @Test func anotherSitesRequestIsRefusedEvenWithTheCookie() async throws {
        try await TestServer.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            let refusals: [(String, HTTPFields)] = [
                ("another origin", browser.headers(origin: "https://evil.example")),
                ("another port", browser.headers(origin: "http://localhost:8080")),
                ("https for http", browser.headers(origin: "https://localhost")),
                ("null origin", browser.headers(origin: "null")),
                ("no origin at all", browser.headers(origin: nil)),
                ("cross-site fetch", browser.headers(origin: nil, extra: [("Sec-Fetch-Site", "cross-site")])),
                ("same-site fetch", browser.headers(origin: nil, extra: [("Sec-Fetch-Site", "same-site")])),
                ("cross-site with a right origin", browser.headers(extra: [("Sec-Fetch-Site", "cross-site")])),
                ("typed address for a change", browser.headers(origin: nil, extra: [("Sec-Fetch-Site", "none")])),
            ]
            for (what, headers) in refusals {
                let reply = try await browser.send(.post, "/console/api/1.1/classes/Todo", ["title": "x"], headers: headers)
                expectError(reply, code: 403, status: .forbidden)
                #expect(reply["error"]?.stringValue?.contains("Cross-site") == true, "\(what): \(reply)")
            }
            // A read another site starts is refused too (a browser wouldn't send the cookie).
            for site in ["cross-site", "same-site"] {
                let reply = try await browser.send(
                    .get, "/console/api/1.1/classes/Todo", headers: browser.headers(origin: nil, extra: [("Sec-Fetch-Site", site)]))
                expectError(reply, code: 403, status: .forbidden)
            }
            #expect(try await api.find("Todo", headers: Headers.master).results.isEmpty)
            // The browser's own requests pass: its origin, or Sec-Fetch-Site alone.
            let own = try await browser.send(
                .post, "/console/api/1.1/classes/Todo", ["title": "mine"], headers: browser.headers(origin: nil, extra: [("Sec-Fetch-Site", "same-origin")]))
            #expect(own.status == .created, "\(own)")
            // And a login from another site is refused before the key is looked at.
            expectError(try await ConsoleBrowser.login(api, origin: "https://evil.example").0, code: 403, status: .forbidden)
            expectError(try await ConsoleBrowser.login(api, origin: nil).0, code: 403, status: .forbidden)
        }
    }

    @Test func theSessionClassIsReachedByNoDataPath() async throws {
        var functions = FunctionRegistry()
        functions.define("readSessions") { request -> String in
            do {
                return "\(try await request.data.asMaster.find("_ConsoleSession").count)"
            } catch let error as DataAPIError {
                return "\(error.code.rawValue)"
            }
        }
        try await TestServer.run(functions: functions) { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            let key = ConsoleSessions.key(of: browser.sessionID, masterKey: TestServer.keys.masterKey)
            let cql = "select * from _ConsoleSession".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let paths = [
                "/1.1/classes/_ConsoleSession", "/1.1/classes/_ConsoleSession?count=1&limit=0", "/1.1/classes/_ConsoleSession/\(key)",
                "/1.1/cloudQuery?cql=" + cql, "/1.1/scan/classes/_ConsoleSession", "/1.1/schemas/_ConsoleSession",
                "/1.1/classes/Probe?where=" + (#"{"ref":{"$inQuery":{"className":"_ConsoleSession","where":{}}}}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
                "/1.1/classes/Probe?where=" + (#"{"name":{"$select":{"query":{"className":"_ConsoleSession"},"key":"csrfToken"}}}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""),
            ]
            _ = try await api.create("Probe", ["name": "probe", "ref": pointer("_ConsoleSession", key)], headers: Headers.master)
            // Through the API with the master key, and through the console as its own session.
            for (prefix, headers) in [("", Headers.master), ("/console/api", browser.headers())] {
                for path in paths {
                    let reply = try await api.get(prefix + path, headers: headers)
                    expectError(reply, code: 119, status: .forbidden)
                    #expect(!reply.text.contains(browser.csrf), "\(prefix)\(path): \(reply)")
                }
                let writes = [
                    try await api.post(prefix + "/1.1/classes/_ConsoleSession", headers: headers, ["csrfToken": "mine", "created": 1.0e10, "lastSeen": 1.0e10]),
                    try await api.put(prefix + "/1.1/classes/_ConsoleSession/\(key)", headers: headers, ["lastSeen": 1.0e10]),
                    try await api.delete(prefix + "/1.1/classes/_ConsoleSession/\(key)", headers: headers),
                    try await api.post(prefix + "/1.1/schemas/_ConsoleSession", headers: headers, ["fields": [:]]),
                ]
                for reply in writes { expectError(reply, code: 119, status: .forbidden) }
                let batch = try await api.post(
                    prefix + "/1.1/batch", headers: headers,
                    ["requests": [["method": "GET", "path": "/1.1/classes/_ConsoleSession"], ["method": "DELETE", "path": .string("/1.1/classes/_ConsoleSession/\(key)")]]])
                #expect(batch.json?.arrayValue?.allSatisfy { $0["error"]?["code"] == 119 } == true, "\(batch)")
                let included = try await api.get(prefix + "/1.1/classes/Probe?include=ref", headers: headers)
                #expect(included.results.first?["ref"] == pointer("_ConsoleSession", key), "\(included)")
                let schemas = try await api.get(prefix + "/1.1/schemas", headers: headers)
                #expect(schemas.status == .ok && schemas.json?["_ConsoleSession"] == nil && schemas.json?["Probe"] != nil, "\(schemas)")
                #expect(try await api.post(prefix + "/1.1/functions/readSessions", headers: headers, [:])["result"] == "119")
            }
            // Still the one session, alive.
            #expect(try await browser.send(.get, "/console/api/session")["csrfToken"]?.stringValue == browser.csrf)
        }
    }
}
