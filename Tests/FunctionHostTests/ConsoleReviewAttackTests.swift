import DataAPI
import Foundation
import HTTPTypes
import JSON
import NIOHTTP1
import TestSupport
import Testing

@testable import FunctionHost

/// The console's attack review (a tester who hadn't read its tests): a function run by GET
/// through a session without its token, sessions outliving a new master key, a cookie planted in
/// front of the operator's, and the console's API answers without its protective headers.
@Suite struct ConsoleReviewAttackTests {
    /// A function any GET from another page of the same site (an `<img>`, a link opened from a
    /// mail) ran as the master key: the API under the console asks the token of reads too.
    @Test func aFunctionIsRunThroughTheConsoleOnlyWithTheToken() async throws {
        let runs = Recorded<String>()
        var functions = FunctionRegistry()
        functions.define("purgeAll") { _ -> String in
            runs.record("ran")
            return "purged"
        }
        try await TestServer.run(functions: functions) { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            for path in ["/console/api/1.1/functions/purgeAll", "/console/api/1.1/call/purgeAll", "//console/api/1.1/functions/purgeAll"] {
                for origin in [nil, ConsoleBrowser.origin] {
                    var headers = browser.headers(csrf: .some(nil), origin: origin)
                    let refused = try await api.send(.get, path, headers: headers)
                    expectError(refused, code: 403)
                    headers[HTTPField.Name("Sec-Fetch-Site")!] = "none"
                    expectError(try await api.send(.get, path, headers: headers), code: 403)
                }
            }
            #expect(runs.all.isEmpty, "no function ran without the token")
            let ran = try await browser.send(.post, "/console/api/1.1/functions/purgeAll", [:])
            #expect(ran["result"] == "purged", "\(ran)")
            #expect(runs.all == ["ran"])
        }
    }

    /// A new master key ends every console session opened with the old one.
    @Test func aNewMasterKeyEndsEverySession() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let browser = try await TestServer.run(dataDirectory: directory) { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            #expect(try await browser.send(.get, "/console/api/1.1/schemas").status == .ok)
            return browser
        }
        var rotated = TestServer.keys
        rotated.masterKey = "a-new-master-key"
        try await TestServer.run(dataDirectory: directory, keys: rotated) { api in
            let moved = ConsoleBrowser(api: api, cookie: browser.cookie, csrf: browser.csrf)
            expectError(try await moved.send(.get, "/console/api/1.1/schemas"), code: 401, status: .unauthorized)
            expectError(try await moved.send(.post, "/console/api/1.1/classes/AfterRotation", ["x": 1]), code: 401, status: .unauthorized)
        }
        // The old key again: the session's record is still there and is the old key's.
        try await TestServer.run(dataDirectory: directory) { api in
            let back = ConsoleBrowser(api: api, cookie: browser.cookie, csrf: browser.csrf)
            let answer = try await back.send(.get, "/console/api/1.1/schemas")
            #expect(answer.status == .ok, "\(answer)")
        }
    }

    /// A page of the same site (another port: cookies know none) can plant a cookie of the
    /// same name that the browser sends first: every one is tried, up to a few.
    @Test func aPlantedCookieInFrontDoesNotLockTheOperatorOut() async throws {
        try await TestServer.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            let planted = "fh_console=" + String(repeating: "0", count: 64)
            // Browsers send a longer path's cookie first: four and more planted with paths of
            // their own, malformed ones (skipped before they count) and well-formed ones.
            let malformed = (0..<8).map { "fh_console=x\($0)" }.joined(separator: "; ")
            let wellFormed = Array(repeating: planted, count: 6).joined(separator: "; ")
            for cookie in [
                "\(planted); \(browser.cookie)", "fh_console=junk; \(planted); \(browser.cookie)", "\(malformed); \(browser.cookie)",
                "\(malformed); \(wellFormed); \(browser.cookie)",
            ] {
                let headers = Self.headers(cookie: cookie, of: browser)
                #expect(try await api.send(.get, "/console/api/1.1/schemas", headers: headers).status == .ok, "\(cookie)")
            }
            // Bounded: a request is looked up by its first few cookies only.
            let many = Array(repeating: planted, count: ConsoleRequest.maxSessionCookies) + [browser.cookie]
            let refused = try await api.send(
                .get, "/console/api/1.1/schemas", headers: Self.headers(cookie: many.joined(separator: "; "), of: browser))
            expectError(refused, code: 401, status: .unauthorized)
        }
    }

    /// The page's headers with `cookie` as its only Cookie.
    static func headers(cookie: String, of browser: ConsoleBrowser) -> HTTPFields {
        Headers.make([("Cookie", cookie), ("Origin", ConsoleBrowser.origin), ("X-Console-CSRF", browser.csrf)])
    }

    /// The page's scripts come from its assets folder only: a file a client uploaded, served
    /// from the same origin, is no script the page's policy admits.
    @Test func thePagesScriptsComeOnlyFromItsAssets() async throws {
        try await TestServer.run(transport: .socket) { api in
            let page = try await EdgeFixture.send(port: api.port, .GET, "/console", host: "console.example:8080", headers: [])
            let policy = try #require(page.header("Content-Security-Policy"), "\(page)")
            #expect(policy.contains("script-src console.example:8080/console/assets/;"), "\(policy)")
            #expect(!policy.contains("script-src 'self'"), "\(policy)")
        }
        // A Host CSP can't name as a host falls back to the origin, never to something wider.
        for odd in ["[::1]:8080", "a b", "x;script-src *", ""] {
            #expect(ConsoleAssets.contentSecurityPolicy(authority: odd).contains("script-src 'self';"), "\(odd)")
        }
    }

    /// The console's API answers are the master key's data: never cached, sniffed or framed,
    /// refusals included.
    @Test func theConsolesAPIAnswersAreNeverCachedOrFramed() async throws {
        try await TestServer.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            let answers = [
                try await browser.send(.get, "/console/api/1.1/schemas"),
                try await browser.send(.get, "/console/api/1.1/schemas", headers: browser.headers(csrf: .some(nil))),
                try await api.send(.get, "/console/api/1.1/schemas", headers: Headers.master),
                try await browser.send(.get, "/console/api/session"),
            ]
            for answer in answers {
                #expect(answer.header("Cache-Control") == "no-store", "\(answer.status)")
                #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(answer.status)")
                #expect(answer.header("X-Frame-Options") == "DENY", "\(answer.status)")
                #expect(answer.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true, "\(answer.status)")
            }
        }
    }

    /// `//console/...` reaches the console: CORS treats it as the console's too.
    @Test func emptySegmentsInFrontOfTheConsoleGetNoCORS() async throws {
        try await TestServer.run { api in
            for path in ["//console/api/1.1/classes/Foo", "///console/api/session"] {
                let preflight = try await api.send(
                    .options, path,
                    headers: Headers.make([("Origin", "http://evil.example"), ("Access-Control-Request-Method", "POST")]))
                #expect(preflight.header("Access-Control-Allow-Origin") == nil, "\(path): \(preflight.status)")
            }
        }
    }
}
