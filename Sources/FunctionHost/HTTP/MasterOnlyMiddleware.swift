import Hummingbird

/// Lets the master key through and refuses every other caller: the operator's own routes
/// (logs, metrics, the functions' list) are registered in a group behind it, inside the
/// authenticated one, so where a route is registered says who may call it.
struct MasterOnlyMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    /// What a caller without the master key is answered (each API words it its own way).
    let refusal: HostError

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard context.caller.isMaster else { throw refusal }
        return try await next(request, context)
    }
}
