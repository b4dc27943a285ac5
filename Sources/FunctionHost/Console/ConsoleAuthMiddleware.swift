import HTTPTypes
import DataAPI
import Hummingbird

/// Makes a console request the master key's, and only one with a live session cookie, from the
/// console's own origin, carrying the session's CSRF token. Keys in the request's headers count
/// for nothing here: the console's API is reached with its session only.
///
/// `csrfOnReads`: the API's routes (`/console/api/1.1/...`) ask the token of every request, GETs
/// too: a function runs by GET (`/functions/{name}`), and a browser sends no `Origin` with a GET
/// and no `Sec-Fetch-Site` to a plain-HTTP host, so only a header no other page can set (an
/// `<img>`, a link, a no-cors fetch set none) tells the console's own page. The console's answers
/// are the master key's data: never cached, never sniffed, never framed.
struct ConsoleAuthMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let sessions: ConsoleSessions
    let proxies: TrustedProxies
    var csrfOnReads = true

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await authorized(request, context: context, next: next)
        } catch let error as HostError {
            response = error.response
        }
        Self.protect(&response.headers)
        return response
    }

    /// The headers every answer under the console's API carries.
    static func protect(_ headers: inout HTTPFields) {
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        headers[.referrerPolicy] = "no-referrer"
        headers[.xFrameOptions] = "DENY"
        headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'; sandbox"
    }

    private func authorized(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let console = ConsoleRequest(request: request, context: context, proxies: proxies)
        var found: ConsoleSession?
        for id in console.sessionIDs where ConsoleSessions.isWellFormed(id) {
            if let session = try await sessions.session(id: id) {
                found = session
                break
            }
        }
        guard let session = found else { throw ConsoleRefusal.noSession }
        // A browser sends the cookie only with the console's own requests (`SameSite=Strict`);
        // this holds also where it would not (an old browser, a sibling subdomain's page).
        guard console.isSameOrigin(requireProof: console.isChange) else { throw ConsoleRefusal.crossSite }
        if console.isChange || csrfOnReads {
            guard let token = request.headers[.consoleCSRF],
                Authenticator.constantTimeEqual(token, session.csrfToken)
            else { throw ConsoleRefusal.csrf }
        }
        var caller = Caller(isMaster: true)
        // `X-LC-Prod: 0` picks staging, as the master key may (`AuthMiddleware`).
        caller.environment = context.functionsEnvironment
        context.caller = caller
        context.sessionToken = nil
        context.consoleSession = session
        return try await next(request, context)
    }
}
