import Hummingbird

/// CORS as LeanEngine answers it: every preflight gets 200 with the LeanCloud headers allowed,
/// every response allows the caller's origin, so browser SDKs work from any page; with a list of
/// web origins, only the listed ones (a page elsewhere gets a 403 preflight and no grant, so its
/// browser sends nothing and reads nothing; `AuthMiddleware` refuses what is sent anyway).
struct CORSPolicy {
    typealias Context = HostRequestContext

    /// The origins granted.
    let origins: WebOrigins

    static let allowedHeaders = ([
        "Content-Type", "X-AVOSCloud-Application-Id", "X-AVOSCloud-Application-Key",
        "X-AVOSCloud-Application-Production", "X-AVOSCloud-Client-Version", "X-AVOSCloud-Request-Sign",
        "X-AVOSCloud-Session-Token", "X-AVOSCloud-Super-Key", "X-AVOSCloud-Master-Key", "X-Requested-With",
        "X-Uluru-Application-Id", "X-Uluru-Application-Key", "X-Uluru-Application-Production",
        "X-Uluru-Client-Version", "X-Uluru-Session-Token", "X-LC-Hook-Key", "X-LC-Id", "X-LC-Key", "X-LC-Prod",
        "X-LC-Session", "X-LC-Sign", "X-LC-UA", "X-Parse-Application-Id", "X-Parse-REST-API-Key",
        "X-Parse-Master-Key", "X-Parse-Session-Token",
    ] + DialectHeaders.corsNames).joined(separator: ", ")

    /// What CORS makes of a request before its route: its whole answer (a preflight), or what
    /// the route's answer gets.
    enum Decision {
        /// Answered here, without the route.
        case answer(Response)
        /// From an origin not granted: the answer says only that it depends on the origin.
        case refused
        /// The route's answer allows `origin`.
        case granted(origin: String)
    }

    /// The decision for `request` to `path` (`EdgeMiddleware` asks it in its own frame).
    func decide(_ request: Request, path: String) -> Decision {
        // The console is its own origin's only: no other page is granted a read or a preflight.
        if ConsoleRequest.isConsolePath(path) {
            return request.method == .options ? .answer(ConsoleRefusal.crossSite.response) : .refused
        }
        let origin = request.headers[.origin] ?? "*"
        guard request.headers[.origin].map(origins.allows) ?? true else {
            return request.method == .options ? .answer(HostError.originRefused.response) : .refused
        }
        if request.method == .options {
            var headers: HTTPFields = [:]
            headers[.accessControlAllowOrigin] = origin
            headers[.accessControlAllowMethods] = "HEAD, GET, POST, PUT, DELETE, OPTIONS"
            headers[.accessControlAllowHeaders] = Self.allowedHeaders
            headers[.accessControlMaxAge] = "86400"
            headers[.contentLength] = "0"
            return .answer(Response(status: .ok, headers: headers))
        }
        return .granted(origin: origin)
    }

    /// Adds to the route's `response` what `decision` says.
    func complete(_ response: inout Response, _ decision: Decision) {
        switch decision {
        case .answer: return
        case .refused:
            response.headers[.vary] = "Origin"
        case .granted(let origin):
            response.headers[.accessControlAllowOrigin] = origin
            // With a list, the answer depends on the origin: a cache must not give it to another.
            if !origins.allowsEveryOrigin { response.headers[.vary] = "Origin" }
        }
    }
}
