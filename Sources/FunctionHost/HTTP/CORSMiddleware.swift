import Hummingbird

/// CORS as LeanEngine answers it: every preflight gets 200 with the LeanCloud headers allowed,
/// every response allows the caller's origin, so browser SDKs work from any page; with a list of
/// web origins, only the listed ones (a page elsewhere gets a 403 preflight and no grant, so its
/// browser sends nothing and reads nothing; `AuthMiddleware` refuses what is sent anyway).
struct LeanCloudCORSMiddleware: RouterMiddleware {
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

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let origin = request.headers[.origin] ?? "*"
        guard request.headers[.origin].map(origins.allows) ?? true else {
            if request.method == .options { return HostError.originRefused.response }
            var response = try await next(request, context)
            response.headers[.vary] = "Origin"
            return response
        }
        if request.method == .options {
            var headers: HTTPFields = [:]
            headers[.accessControlAllowOrigin] = origin
            headers[.accessControlAllowMethods] = "HEAD, GET, POST, PUT, DELETE, OPTIONS"
            headers[.accessControlAllowHeaders] = Self.allowedHeaders
            headers[.accessControlMaxAge] = "86400"
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers)
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        // With a list, the answer depends on the origin: a cache must not give it to another.
        if !origins.allowsEveryOrigin { response.headers[.vary] = "Origin" }
        return response
    }
}
