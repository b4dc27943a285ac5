import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Every change the console's API makes needs the session's CSRF token in `X-Console-CSRF`;
/// reads don't. With both, the session acts as the master key on the API's own routes.
@Suite struct ConsoleCSRFTests {
    @Test func aChangeWithoutTheSessionsTokenIsRefused() async throws {
        try await TestServer.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            let other = try await ConsoleBrowser.loggedIn(api)
            // One digit off (its first, changed whatever it was), another session's, another case.
            let offByOne = (browser.csrf.first == "0" ? "1" : "0") + browser.csrf.dropFirst()
            for csrf: String? in [nil, "", offByOne, other.csrf, browser.csrf.uppercased()] {
                let reply = try await browser.send(.post, "/console/api/1.1/classes/Todo", ["title": "x"], headers: browser.headers(csrf: csrf))
                expectError(reply, code: 403, status: .forbidden)
                #expect(reply["error"]?.stringValue?.contains("X-Console-CSRF") == true, "\(reply)")
            }
            #expect(try await api.find("Todo", headers: Headers.master).results.isEmpty, "nothing was written")
            // Each kind of change.
            let created = try await browser.send(.post, "/console/api/1.1/classes/Todo", ["title": "kept"])
            #expect(created.status == .created, "\(created)")
            let id = try #require(created.objectId)
            let path = "/console/api/1.1/classes/Todo/\(id)"
            expectError(try await browser.send(.put, path, ["title": "changed"], headers: browser.headers(csrf: .some(nil))), code: 403)
            expectError(try await browser.send(.delete, path, headers: browser.headers(csrf: .some(nil))), code: 403)
            expectError(try await browser.send(.post, "/console/api/logout", [:], headers: browser.headers(csrf: .some(nil))), code: 403)
            #expect(try await api.fetch("Todo", id, headers: Headers.master)["title"] == "kept")
        }
    }

    @Test func withTheTokenTheSessionActsAsTheMasterKey() async throws {
        try await TestServer.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            // Reads need the token too (a GET may run a function).
            let refused = try await browser.send(.get, "/console/api/1.1/schemas", headers: browser.headers(csrf: .some(nil)))
            expectError(refused, code: 403)
            let schemas = try await browser.send(.get, "/console/api/1.1/schemas")
            #expect(schemas.status == .ok, "\(schemas)")
            // The session route hands the token out, so it asks none.
            #expect(try await browser.send(.get, "/console/api/session", headers: browser.headers(csrf: .some(nil))).status == .ok)
            // A class only the master key reads: the outbox.
            _ = try await api.create("_Outbox", ["to": "ada"], headers: Headers.master)
            let outbox = try await browser.send(.get, "/console/api/1.1/classes/_Outbox")
            #expect(outbox.status == .ok && outbox.results.count == 1, "\(outbox)")
            // Create, filter, edit, delete: stored as through the API.
            let created = try await browser.send(.post, "/console/api/1.1/classes/Score", ["points": 3, "at": ["__type": "Date", "iso": "2026-01-02T03:04:05.000Z"]])
            let id = try #require(created.objectId, "\(created)")
            #expect(created.header("Location") == "/1.1/classes/Score/\(id)")
            _ = try await browser.send(.post, "/console/api/1.1/classes/Score", ["points": 9])
            let filtered = try await browser.send(.get, "/console/api/1.1/classes/Score?count=1&where=%7B%22points%22%3A%7B%22%24lt%22%3A5%7D%7D")
            #expect(filtered["count"] == 1 && filtered.results.first?["at"]?["__type"] == "Date", "\(filtered)")
            #expect(try await browser.send(.put, "/console/api/1.1/classes/Score/\(id)", ["points": 4]).status == .ok)
            #expect(try await api.fetch("Score", id, headers: Headers.master)["points"] == 4)
            #expect(try await browser.send(.delete, "/console/api/1.1/classes/Score/\(id)").status == .ok)
            // Gone: LeanCloud answers a missing object's fetch with `{}`.
            #expect(try await api.get("/1.1/classes/Score/\(id)", headers: Headers.master).json == [:])
        }
    }
}
