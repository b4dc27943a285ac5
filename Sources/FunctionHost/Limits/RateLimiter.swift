import DataAPI
import Hummingbird
import Synchronization

/// Applies `RateLimits`: a client past its rate gets 429 `{"code": 429, "error": ...}` with
/// `Retry-After`, as LeanCloud answers an app past its request rate.
final class RateLimiter: Sendable {
    private let clients: TokenBuckets?
    private let functions: [String: TokenBuckets]
    private let otherFunctions: TokenBuckets?

    init(_ limits: RateLimits) {
        clients = limits.perClient.map { TokenBuckets(rate: $0, burst: $0) }
        functions = limits.perFunction.filter { $0.key != "*" }.mapValues { TokenBuckets(rate: $0, burst: $0) }
        otherFunctions = limits.perFunction["*"].map { TokenBuckets(rate: $0, burst: $0) }
    }

    /// Whether any limit is set: with none, the middleware is not installed.
    var limitsClients: Bool { clients != nil }

    /// Throws 429 when `client` (an address) is past its rate.
    ///
    /// Clients are keyed as the other per-client limits key them (`SendLimits.client(ofAddress:)`):
    /// an IPv6 client is its /64, or it would rotate through 2^64 addresses and buckets.
    func admit(client: String) throws {
        let key = SendLimits.client(ofAddress: client)
        if let wait = clients?.take(key) { throw Self.refusal(wait, "Too many requests from this address.") }
    }

    /// Counts `further` requests more of `client` at once: the other items of a batch whose
    /// request was admitted. They may leave its bucket owing tokens, which its next requests
    /// wait for, so a batch larger than the burst is served, once; while the bucket owes, no
    /// other batch is (batches admitted together can't each run up a debt).
    ///
    /// - Throws: 429 when the client's bucket owes tokens already.
    func admit(client: String, further: Int) throws {
        guard further > 0 else { return }
        if let wait = clients?.take(SendLimits.client(ofAddress: client), count: further, needing: 0) {
            throw Self.refusal(wait, "Too many requests from this address.")
        }
    }

    /// Throws 429 when the function `name` is past its rate.
    func admit(function name: String) throws {
        if let functions = functions[name] {
            if let wait = functions.take(name) { throw Self.refusal(wait, "Too many calls of '\(name)'.") }
        } else if let wait = otherFunctions?.take(name) {
            throw Self.refusal(wait, "Too many calls of '\(name)'.")
        }
    }

    /// A 429 telling the client how long to wait (the console's login limit answers so too).
    static func refusal(_ wait: Duration, _ message: String) -> HostError {
        var error = HostError(status: .tooManyRequests, code: 429, message: message)
        error.retryAfter = max(1, Int(wait.components.seconds) + (wait.components.attoseconds > 0 ? 1 : 0))
        return error
    }
}

/// Refuses requests past their client's rate, before any work is done for them.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let limiter: RateLimiter

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // The health check answers a load balancer, whatever its rate.
        if !request.uri.path.hasPrefix("/__engine/") {
            try limiter.admit(client: context.clientAddress ?? "unknown")
        }
        return try await next(request, context)
    }
}
