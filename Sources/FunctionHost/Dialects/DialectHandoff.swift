import JSON
import Synchronization

/// The parsed values the dialects' edge (`DialectResponder`) and the router hand each other for
/// one request, so that neither prints JSON for the other to parse again: the body the edge
/// translated goes to the route as a value (`Request.json(context:)`), and the JSON a route
/// answers comes back as one (`JSONResponse`, `ErrorMiddleware`).
final class DialectHandoff: Sendable {
    /// The translated body: what `Request.json(context:)` answers instead of reading the
    /// request's bytes (nil: an empty body).
    let body: JSONValue?
    private let kept = Mutex<JSONValue?>(nil)

    /// A handoff carrying `body` to the route.
    init(body: JSONValue?) {
        self.body = body
    }

    /// The JSON the answer was made from, if a `JSONResponse` or the error middleware made it.
    var answer: JSONValue? { kept.withLock { $0 } }

    /// Keeps the JSON the answer is being made from (the last one made wins: the error
    /// middleware's, over a route's it replaced).
    func keep(answer: JSONValue) {
        kept.withLock { $0 = answer }
    }
}
