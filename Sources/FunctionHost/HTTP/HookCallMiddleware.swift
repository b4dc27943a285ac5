import Hummingbird

/// Stands before the platform's hook calls (`POST /1.1/functions/{Class}/{hook}`, `HookRoutes`):
/// one that carries `X-LC-Hook-Key` and names a hook goes on to its route, which checks the key;
/// any other request there is authenticated as every request is.
struct HookCallMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let authentication: AuthMiddleware

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.headers[.lcHookKey] != nil, let first = context.parameters.get("name"),
            let second = context.parameters.get("hook"), HookRoutes.hook(first, second) != nil
        {
            return try await next(request, context)
        }
        return try await authentication.handle(request, context: context, next: next)
    }
}
