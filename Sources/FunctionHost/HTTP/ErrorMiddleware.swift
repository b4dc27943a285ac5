import Hummingbird
import Logging

/// Turns every error a route throws into LeanCloud's `{"code","error"}` answer, and logs the
/// unexpected ones with the request id while the client sees only a generic 500.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Self.answer(to: error, context: context)
        }
    }

    /// The answer to `error`, thrown while serving the request of `context` (`EdgeMiddleware`
    /// asks it in its own frame).
    static func answer(to error: any Error, context: Context) -> Response {
        var mapped = HostError(mapping: error)
        if mapped == nil {
            context.logger.error("Unhandled error: \(String(describing: error))")
            mapped = HostError(status: .internalServerError, code: 1, message: "Internal server error.")
        }
        let answer = mapped!
        context.dialectHandoff?.keep(answer: answer.json)
        return answer.response
    }
}
