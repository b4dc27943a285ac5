import HTTPTypes
import DataAPI
import Foundation
import Hummingbird
import JSON

/// The web console's own routes: its page and assets and its login (open: they hold nothing),
/// and, behind a session (`ConsoleAuthMiddleware`), the session's CSRF token and logout. The
/// console's data requests go to the API's own routes, mounted again under `/console/api/1.1`
/// (`FunctionHostServer.registerConsole`).
struct ConsoleRoutes: Sendable {
    let assets: ConsoleAssets
    let sessions: ConsoleSessions
    let masterKey: String
    let proxies: TrustedProxies
    /// Login attempts per client address.
    let logins: TokenBuckets

    /// The largest login body read: a form or JSON holding one key.
    static let maxLoginBody = 4096

    init(sessions: ConsoleSessions, masterKey: String, proxies: TrustedProxies) {
        assets = .embedded
        self.sessions = sessions
        self.masterKey = masterKey
        self.proxies = proxies
        let options = sessions.options
        logins = TokenBuckets(rate: options.loginsPerMinute / 60, burst: Double(options.loginBurst))
    }

    /// The open routes: `/console`, its assets, and the login.
    func register(on router: Router<HostRequestContext>) {
        router.get("console") { request, _ in assets.response(assets.page, to: request, immutable: false) }
        router.get("console/assets/:name") { request, context in
            guard let name = context.parameters.get("name"), let asset = assets.files[name] else {
                throw HTTPError(.notFound)
            }
            return assets.response(asset, to: request, immutable: true)
        }
        router.post("console/login") { request, context in try await login(request, context: context) }
    }

    /// The routes behind a session: `GET session` (the CSRF token) and `POST logout`.
    func registerSession(on group: RouterGroup<HostRequestContext>) {
        group.get("session") { _, context in
            guard let session = context.consoleSession else { throw ConsoleRefusal.noSession }
            return Self.answer(["csrfToken": .string(session.csrfToken), "expiresAt": .double(session.expiry(sessions.options))])
        }
        group.post("logout") { request, context in
            guard let session = context.consoleSession else { throw ConsoleRefusal.noSession }
            try await sessions.close(session)
            var response = Self.answer(["loggedOut": true])
            response.setCookie(ConsoleRequest(request: request, context: context, proxies: proxies).cookie(nil, maxAge: 0))
            return response
        }
    }

    /// `POST /console/login` with `masterKey` in a form or JSON: a session cookie and the
    /// page's CSRF token (a form is sent on to the page instead, 303).
    private func login(_ request: Request, context: HostRequestContext) async throws -> Response {
        let console = ConsoleRequest(request: request, context: context, proxies: proxies)
        // Another site's page can't log a browser in to a session of its choosing.
        guard console.isSameOrigin(requireProof: true) else { throw ConsoleRefusal.crossSite }
        // Every attempt counts, right or wrong: a guesser learns nothing by succeeding midway.
        if let wait = logins.take(SendLimits.client(ofAddress: context.clientAddress ?? "unknown")) {
            throw RateLimiter.refusal(wait, "Too many console logins from this address.")
        }
        let buffer = try await request.body.collect(upTo: Self.maxLoginBody)
        let isForm = request.headers[.contentType]?.hasPrefix("application/x-www-form-urlencoded") == true
        let body = String(buffer: buffer)
        let key = isForm ? Self.formValue("masterKey", in: body) : (try? JSONValue(parsing: Array(body.utf8)))?["masterKey"]?.stringValue
        guard let key, Authenticator.constantTimeEqual(key, masterKey) else { throw ConsoleRefusal.wrongKey }
        let (id, session) = try await sessions.open()
        var response =
            isForm
            ? Response(status: .seeOther, headers: ConsoleAssets.securityHeaders.merging([.location: "/console"]))
            : Self.answer(["csrfToken": .string(session.csrfToken), "expiresAt": .double(session.expiry(sessions.options))])
        response.setCookie(console.cookie(id, maxAge: Int(sessions.options.lifetime)))
        return response
    }

    /// A JSON answer with the console's headers, never cached.
    static func answer(_ json: JSONValue) -> Response {
        var headers = ConsoleAssets.securityHeaders
        headers[.cacheControl] = "no-store"
        return JSONResponse(status: .ok, json, headers: headers).response
    }

    /// The value of `name` in an `application/x-www-form-urlencoded` body.
    static func formValue(_ name: String, in body: String) -> String? {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == name else { continue }
            return String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return nil
    }
}

extension HTTPFields {
    /// These fields with `others` set over them.
    func merging(_ others: HTTPFields) -> HTTPFields {
        var fields = self
        for field in others { fields[field.name] = field.value }
        return fields
    }
}
