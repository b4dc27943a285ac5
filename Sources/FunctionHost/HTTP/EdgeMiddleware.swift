import Hummingbird

/// The four outer steps every request takes, in one frame: its facts read
/// (`RequestFactsReader`), then observed (`RequestObserver`: one log line and one metrics
/// record once its answer is ready), CORS (`CORSPolicy`: preflights answered here,
/// grants added), and every error of the routes inside mapped to its answer (`ErrorMiddleware`).
/// The first three are plain values this middleware calls, not middlewares of their own.
///
/// The same steps in the same order as when they were four stacked middlewares, but one async call and one
/// context copy instead of four: each layer's cost showed in a Swift function's profile.
struct EdgeMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let facts: RequestFactsReader
    let observer: RequestObserver
    let cors: CORSPolicy

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        // Read once for the three steps: each read of `uri.path` makes a new string.
        let path = request.uri.path
        facts.read(request, path: path, into: &context)
        let start = ContinuousClock.now
        let environment = context.functionsEnvironment.rawValue
        let decision = cors.decide(request, path: path)
        var response: Response
        if case .answer(let answer) = decision {
            response = answer
        } else {
            do {
                response = try await next(request, context)
            } catch {
                response = ErrorMiddleware.answer(to: error, context: context)
            }
            cors.complete(&response, decision)
        }
        observer.record(request, path: path, context, status: response.status.code, environment: environment, since: start)
        return response
    }
}
