import DataAPI
import Foundation
import Hummingbird

/// Which requests are an app's own web pages rather than the API: those on the app's host name
/// (`--engine-web-host`, as `<app>.leanapp.cn` served them; `stg-<host>` is staging's, as
/// LeanCloud bound `stg-` domains) that aren't API paths, and those under a path prefix
/// (`--engine-web-prefix`). They go to the environment's engine (`EngineWebProxy`).
public struct EngineWebRoutes: Sendable, Equatable {
    /// The app's host name (no port), lowercased; `stg-` before it is staging's.
    public var host: String?
    /// Path prefixes (`/app`) served by each environment's engine, the prefix taken off.
    public var prefixes: [EnvironmentName: String] = [:]

    /// No web routes.
    public init(host: String? = nil, prefixes: [EnvironmentName: String] = [:]) {
        self.host = host?.lowercased()
        self.prefixes = prefixes
    }

    /// The first path segments the host serves itself even on the app's host name: the API
    /// (`/1.1/...`, the dialects' `/2.0`), files, the engine ping, the realtime route lookup.
    public static let apiSegments: Set<Substring> = ["1", "1.1", "2.0", "files", "__engine", "v1"]

    /// The first path segments of LeanEngine's own protocol on an engine (its functions, hooks
    /// and metadatas): the host calls them, so a web request never reaches them, whatever its
    /// prefix. A client calls the host's `/1.1/functions/...`, under its limits and logs.
    static let engineProtocolSegments: Set<String> = ["1", "1.1", "__engine"]

    /// The environment whose engine serves this request, and the path it is given; nil for the
    /// API and for the engine's own protocol.
    func route(authority: String?, path: String) -> (environment: EnvironmentName, path: String)? {
        for (environment, prefix) in prefixes.sorted(by: { $0.value.count > $1.value.count }) {
            let rest: String
            if path == prefix {
                rest = "/"
            } else if path.hasPrefix(prefix + "/") {
                rest = String(path.dropFirst(prefix.count))
            } else {
                continue
            }
            return Self.engineProtocolSegments.contains(Self.firstSegment(rest) ?? "1") ? nil : (environment, rest)
        }
        guard let host, let authority else { return nil }
        let name = Self.hostName(authority)
        let environment: EnvironmentName
        if name == host {
            environment = .production
        } else if name == "stg-" + host {
            environment = .staging
        } else {
            return nil
        }
        // Compared as the engine will read it (`/%31.1/` is `/1.1/`); a segment that doesn't
        // decode stays the host's.
        guard let first = Self.firstSegment(path) else { return nil }
        if Self.apiSegments.contains(Substring(first)) || Self.engineProtocolSegments.contains(first) { return nil }
        return (environment, path)
    }

    /// A path's first segment as the engine reads it: decoded before it is split (`/1.1%2Ffunctions`
    /// is `/1.1/functions` to a WSGI or Express app); nil when it doesn't decode.
    static func firstSegment(_ path: String) -> String? {
        guard let decoded = path.removingPercentEncoding else { return nil }
        return String(decoded.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true).first ?? "")
    }

    /// `Host`'s name without its port, lowercased (`[::1]:80` keeps its brackets).
    static func hostName(_ authority: String) -> String {
        let lowered = authority.lowercased()
        if lowered.hasPrefix("[") { return String(lowered.prefix { $0 != "]" }) + "]" }
        return String(lowered.prefix { $0 != ":" })
    }
}

/// Sends an app's web requests to its engine (`EngineWebRoutes`); the rest go on to the API.
struct EngineWebMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let routes: EngineWebRoutes
    let proxy: EngineWebProxy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let (environment, path) = routes.route(authority: request.head.authority, path: request.uri.path) else {
            return try await next(request, context)
        }
        // The app's pages are its engine's, even while it runs none: never the API's.
        guard let engine = proxy.environments.engine(of: environment) else {
            throw HostError(status: .serviceUnavailable, code: 1, message: "The app is not available: \(environment) runs no engine app.")
        }
        return try await proxy.forward(request, to: engine, path: path, context: context)
    }
}
