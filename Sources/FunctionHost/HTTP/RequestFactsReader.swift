import DataAPI
import Hummingbird

/// Reads what every later step asks about a request once, first, into its context: the client's
/// address (before the rate limit keys on it), the environment `X-LC-Prod` picks (for the log,
/// the metrics and authentication alike) and the largest body its route reads.
struct RequestFactsReader {
    typealias Context = HostRequestContext
    let proxies: TrustedProxies
    let bodyLimits: BodyLimits

    /// Sets the facts of `request` to `path` in `context` (`EdgeMiddleware` does, in its own frame).
    func read(_ request: Request, path: String, into context: inout Context) {
        context.clientAddress = ClientAddress.resolve(peer: context.remoteAddress, headers: request.headers, trusting: proxies)
        context.functionsEnvironment = Self.environment(request.headers[.lcProd])
        context.bodyLimit = bodyLimits.limit(forPath: path)
    }

    /// `X-LC-Prod: 0` (or `false`) is staging; anything else, or none, production.
    static func environment(_ header: String?) -> EnvironmentName {
        header == "0" || header == "false" ? .staging : .production
    }
}
