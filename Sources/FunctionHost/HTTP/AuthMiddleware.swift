import DataAPI
import Hummingbird
import JSON

/// Authenticates a request, answering 401 `{"code":401,"error":"Unauthorized."}` to wrong or
/// missing credentials. It stands at the head of the authenticated groups (`FunctionHostServer.
/// makeRouter`): a route registered outside them is open, and `RouteAccessTests` holds the list.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let authenticator: Authenticator
    /// Where session tokens are looked up.
    let data: DataService
    /// The origins web pages may call from; a page elsewhere is refused with the app key.
    var webOrigins = WebOrigins.any
    /// Whether staging reads and writes production's data (no `--staging-data-dir`).
    var stagingSharesData = true

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        var credentials = Authenticator.credentials(from: request.headers)
        // The request is copied only when its body is read here (a copy is a dozen references counted).
        var collected: Request?
        if credentials.appId == nil, request.headers[.contentType]?.hasPrefix("text/plain") == true {
            // Browsers avoid a CORS preflight by sending JSON as text/plain with the keys inside.
            var request = request
            let buffer = try await request.body.collect(upTo: context.bodyLimit)
            request.body = .init(buffer: buffer)
            collected = request
            if let body = try? JSONValue(parsing: buffer.readableBytesView) {
                credentials = Authenticator.credentials(fromBody: body)
            }
        }
        let sessionToken = Self.sessionToken(of: request)
        // MaxLeap lets a session of the app stand in for the app's key (its docs' curls send only
        // `X-ML-AppId` and `X-ML-Session-Token`); the session is checked below, and a caller so
        // proven is a plain client with that user, nothing more.
        let provenBySession =
            sessionToken != nil && authenticator.isAppIdOnly(credentials, inDialect: context.appIdInDialect)
        guard
            var caller = provenBySession
                ? Caller(isMaster: false) : authenticator.caller(for: credentials, inDialect: context.dialect != nil)
        else {
            throw HostError.unauthorized
        }
        caller.presentedHookKey = authenticator.isHookKey(credentials.hookKey)
        // A page of an origin the app doesn't list is refused (403) whatever it asks: the list is
        // the app's say over which sites use its key. Requests without an `Origin` (servers, mobile
        // apps, curl) are no page's, and the master key is the operator's own: neither is bound.
        if !caller.isMaster, let origin = request.headers[.origin], !webOrigins.allows(origin) {
            throw HostError.originRefused
        }
        // `X-LC-Prod: 0` (or `false`) picks staging's functions. Its hooks guard writes only where
        // they can't reach production's data, or for the master key: on shared data a client
        // picking staging would otherwise pick which validation (none, an old one) its writes pass.
        // (`RequestFactsReader` read the header.)
        if context.functionsEnvironment == .staging, !stagingSharesData || caller.isMaster {
            caller.environment = .staging
        }
        // The session's user rides with the caller, so hooks fired by this request see it. An
        // unknown token is not refused here: functions with `fetchUser: false` take any token.
        // Only where the session is the app's credential must it be one of the app's users'.
        if let sessionToken {
            caller.user = try await data.userJSON(forSessionToken: sessionToken, in: caller.environment)
            if provenBySession, caller.user == nil {
                throw HostError(status: .unauthorized, code: 90100, message: "Invalid session token.")
            }
        }
        context.sessionToken = sessionToken
        // Built once, here: everything this request reads or writes acts as this caller, and
        // reaches its environment's database (the same one, unless staging has its own).
        context.caller = caller
        if let collected { return try await next(collected, context) }
        return try await next(request, context)
    }

    /// The session token a request presents: `session_token` in the query, which the Python and
    /// PHP SDKs' `become` and `is_authenticated` send to ask about a token other than the current
    /// user's, else the session header (`HTTPFields.sessionToken`). The query's wins, as on
    /// LeanCloud: `GET /users/me?session_token=<stale>` under a valid `X-LC-Session` answers 211.
    /// Every route reads it from here (`HostRequestContext.sessionToken`), and the caller's user is
    /// the one it names.
    static func sessionToken(of request: Request) -> String? {
        if let query = request.queryParameters["session_token"], !query.isEmpty { return String(query) }
        return request.headers.sessionToken
    }
}
