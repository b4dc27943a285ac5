import HTTPTypes
import DataAPI
import Foundation
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The console's sessions: a cookie the page can't read, kept hashed, ending after an hour
/// unused or twelve hours in all, and ended by logout.
@Suite struct ConsoleSessionTests {
    @Test func aLoginSetsAStrictHttpOnlyCookieAndAnswersTheCSRFToken() async throws {
        try await TestServer.run { api in
            let (reply, loggedIn) = try await ConsoleBrowser.login(api)
            #expect(reply.status == .ok, "\(reply)")
            let setCookie = try #require(reply.headers[values: .setCookie].first, "\(reply)")
            for attribute in ["HttpOnly", "SameSite=Strict", "Path=/console", "Max-Age=43200"] {
                #expect(setCookie.contains(attribute), "\(setCookie)")
            }
            // Plain HTTP as the host sees it: a Secure cookie would never come back.
            #expect(!setCookie.contains("Secure"), "\(setCookie)")
            let browser = try #require(loggedIn)
            #expect(ConsoleSessions.isWellFormed(browser.sessionID))
            #expect(browser.csrf.count == 64 && browser.csrf != browser.sessionID)
            // The master key is in no answer: the page holds the CSRF token only.
            #expect(!reply.text.contains("\"master\""))
            let session = try await browser.send(.get, "/console/api/session")
            #expect(session.status == .ok && session["csrfToken"]?.stringValue == browser.csrf, "\(session)")
            #expect(session.header("Cache-Control") == "no-store")
            // Two logins, two sessions.
            let other = try await ConsoleBrowser.loggedIn(api)
            #expect(other.sessionID != browser.sessionID && other.csrf != browser.csrf)
        }
    }

    @Test func aFormLoginIsSentOnToThePage() async throws {
        try await TestServer.run { api in
            let reply = try await api.send(
                .post, "/console/login",
                headers: Headers.make([("Content-Type", "application/x-www-form-urlencoded"), ("Origin", ConsoleBrowser.origin)]),
                body: "masterKey=master")
            #expect(reply.status == .seeOther && reply.header("Location") == "/console", "\(reply)")
            let cookie = try #require(ConsoleBrowser.sessionCookie(of: reply))
            let session = try await api.send(.get, "/console/api/session", headers: Headers.make([("Cookie", cookie)]))
            #expect(session.status == .ok, "\(session)")
        }
    }

    @Test func theDatabaseKeepsTheSessionsHashOnly() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let browser = try await TestServer.run(dataDirectory: directory) { api in try await ConsoleBrowser.loggedIn(api) }
        let stored = try await TestDatabase.storedBytes(dataDirectory: directory, classes: ["_ConsoleSession"])
        let text = String(decoding: stored, as: UTF8.self)
        #expect(!text.contains(browser.sessionID))
        #expect(text.contains(browser.csrf), "the session's record is there, with its CSRF token")
    }

    @Test func aSessionEndsAfterAnHourUnused() async throws {
        let clock = TestClock()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.clock = { clock.now } }) { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            clock.advance(minutes: 59)
            #expect(try await browser.send(.get, "/console/api/session").status == .ok)
            // Used at 59 minutes: it lives until 1:59.
            clock.advance(minutes: 59)
            #expect(try await browser.send(.get, "/console/api/session").status == .ok)
            clock.advance(minutes: 61)
            let expired = try await browser.send(.get, "/console/api/session")
            expectError(expired, code: 401, status: .unauthorized)
        }
    }

    @Test func aSessionEndsTwelveHoursAfterItsLoginHoweverBusy() async throws {
        let clock = TestClock()
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.clock = { clock.now } }) { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            for _ in 0..<14 {
                clock.advance(minutes: 50)
                #expect(try await browser.send(.get, "/console/api/1.1/schemas").status == .ok)
            }
            // 11 h 40 min so far; at 12 h 30 min it is over.
            clock.advance(minutes: 50)
            expectError(try await browser.send(.get, "/console/api/1.1/schemas"), code: 401, status: .unauthorized)
            // And a new login is a new session.
            #expect(try await ConsoleBrowser.login(api).1 != nil)
        }
    }

    @Test func logoutEndsTheSession() async throws {
        try await TestServer.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            let other = try await ConsoleBrowser.loggedIn(api)
            let reply = try await browser.send(.post, "/console/api/logout", [:])
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply.headers[values: .setCookie].first?.contains("Max-Age=0") == true, "\(reply)")
            // The old cookie, sent again anyway, is nobody's.
            expectError(try await browser.send(.get, "/console/api/session"), code: 401, status: .unauthorized)
            expectError(try await browser.send(.post, "/console/api/logout", [:]), code: 401, status: .unauthorized)
            // Another login's session goes on.
            #expect(try await other.send(.get, "/console/api/session").status == .ok)
        }
    }

    @Test func overHTTPSAsATrustedProxySaysTheCookieIsSecure() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, transport: .socket, configure: { $0.trustedProxies = TrustedProxies(list: "127.0.0.1")! }
        ) { api in
            let reply = try await api.send(
                .post, "/console/login",
                headers: Headers.make([("X-Forwarded-Proto", "https"), ("Origin", "https://localhost")]), json: ["masterKey": "master"])
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply.headers[values: .setCookie].first?.contains("Secure") == true, "\(reply)")
            // Over plain HTTP its page's origin is http://: an https page is another origin.
            let plain = try await api.send(.post, "/console/login", headers: Headers.make([("Origin", "https://localhost")]), json: ["masterKey": "master"])
            expectError(plain, code: 403, status: .forbidden)
        }
    }
}
