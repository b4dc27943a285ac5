import Hummingbird

/// A request no route matched is authenticated before it is told so: without keys it is a 401,
/// as any route would answer it, and only a caller with keys learns that the path serves
/// nothing (404), or the refusal the dialects' edge decided for it (`DialectResponder`, which
/// sends its refusals here so that they pass the rate limit and authentication first).
/// Authentication itself stands in the authenticated groups, around their routes.
struct UnmatchedRouteMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let authentication: AuthMiddleware

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && context.endpointPath == Self.unmatched {
            return try await authentication.handle(request, context: context) { _, context in
                throw context.dialectRefusal ?? error
            }
        }
    }

    /// The endpoint Hummingbird names for a request that matched no route.
    static let unmatched = "NotFound"
}
