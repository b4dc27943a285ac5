import HTTPTypes
import DataAPI
import Hummingbird

/// Makes a console request the master key's, and only one with a live session cookie, from the
/// console's own origin, carrying the session's CSRF token when it changes anything. Keys in the
/// request's headers count for nothing here: the console's API is reached with its session only.
struct ConsoleAuthMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let sessions: ConsoleSessions
    let proxies: TrustedProxies

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let console = ConsoleRequest(request: request, context: context, proxies: proxies)
        guard let id = console.sessionID, let session = try await sessions.session(id: id) else { throw ConsoleRefusal.noSession }
        // A browser sends the cookie only with the console's own requests (`SameSite=Strict`);
        // this holds also where it would not (an old browser, a sibling subdomain's page).
        guard console.isSameOrigin(requireProof: console.isChange) else { throw ConsoleRefusal.crossSite }
        if console.isChange {
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
