import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// What a browser holds of a console login: the session cookie (which its page can't read) and
/// the CSRF token the page read; it sends both as the console's page does, from its own origin.
struct ConsoleBrowser: Sendable {
    let api: API
    /// `fh_console=<id>`.
    var cookie: String
    /// The page's CSRF token.
    var csrf: String

    /// The console's origin as the in-process test client addresses it (`Host: localhost`).
    static let origin = "http://localhost"

    /// Logs in with `key`; the reply, and the browser when it succeeded.
    static func login(_ api: API, key: String = TestServer.keys.masterKey, origin: String? = origin) async throws -> (Reply, ConsoleBrowser?) {
        var pairs = [("Content-Type", "application/json")]
        if let origin { pairs.append(("Origin", origin)) }
        let reply = try await api.send(.post, "/console/login", headers: Headers.make(pairs), json: ["masterKey": .string(key)])
        guard reply.status == .ok, let cookie = sessionCookie(of: reply), let csrf = reply["csrfToken"]?.stringValue else {
            return (reply, nil)
        }
        return (reply, ConsoleBrowser(api: api, cookie: cookie, csrf: csrf))
    }

    /// Logs in with the master key, or fails the test.
    static func loggedIn(_ api: API) async throws -> ConsoleBrowser {
        let (reply, browser) = try await login(api)
        return try #require(browser, "login failed: \(reply)")
    }

    /// The `Set-Cookie` of the session, as a browser sends it back (`fh_console=<id>`).
    static func sessionCookie(of reply: Reply) -> String? {
        reply.headers[values: .setCookie].first { $0.hasPrefix("fh_console=") }.flatMap { $0.split(separator: ";").first.map(String.init) }
    }

    /// The session id in the cookie.
    var sessionID: String { String(cookie.dropFirst("fh_console=".count)) }

    /// The headers the console's page sends: the cookie, the origin, the CSRF token.
    func headers(csrf: String?? = .none, origin: String? = Self.origin, extra: [(String, String)] = []) -> HTTPFields {
        var pairs = [("Cookie", cookie)]
        if let origin { pairs.append(("Origin", origin)) }
        switch csrf {
        case .none: pairs.append(("X-Console-CSRF", self.csrf))
        case .some(let token?): pairs.append(("X-Console-CSRF", token))
        case .some(nil): break
        }
        return Headers.make(pairs + extra)
    }

    /// A request of the page.
    func send(_ method: HTTPRequest.Method, _ path: String, _ json: JSONValue? = nil, headers: HTTPFields? = nil) async throws -> Reply {
        try await api.send(method, path, headers: headers ?? self.headers(), body: json?.jsonString)
    }
}
