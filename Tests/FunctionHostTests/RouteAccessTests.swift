import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import TestSupport
import Testing

@testable import FunctionHost

/// Which routes answer without keys is decided by where they are registered: outside the
/// authenticated group. Every route of the router is asked without keys, and the ones that
/// don't answer the authentication step's 401 must be exactly the expected open list, so a route
/// added outside the group by mistake fails here rather than serving everyone.
@Suite struct RouteAccessTests {
    /// The routes that take no app keys, each for a reason: the health check, the clock, the API's
    /// description, the realtime router (the JS and C# SDKs ask it without keys); pages and images whose token is the credential; file URLs; token uploads;
    /// platform hook calls, which carry the hook key instead; the console's page, assets and login
    /// (its API stands behind its session).
    static let expectedOpen: Set<String> = [
        "GET /", "GET /__engine/1/ping", "GET /__engine/1.1/ping", "GET /openapi.json", "GET /v1/route",
        "GET /files/{key}", "HEAD /files/{key}", "GET /files/{key}/{name}",
        "GET /1/date", "GET /1.1/date",
        "GET /1/emailVerify/{token}", "GET /1.1/emailVerify/{token}",
        "GET /1/resetPassword/{token}", "GET /1.1/resetPassword/{token}",
        "POST /1/resetPassword/{token}", "POST /1.1/resetPassword/{token}",
        "GET /1/captchaImage", "GET /1.1/captchaImage",
        "PUT /1/fileUploads/{token}", "PUT /1.1/fileUploads/{token}",
        "POST /1/fileUploads/{token}", "POST /1.1/fileUploads/{token}",
        "POST /1/functions/{name}/{hook}", "POST /1.1/functions/{name}/{hook}",
        "GET /console", "GET /console/assets/{name}", "POST /console/login",
    ]

    /// What a path parameter is filled with: a hook call must name a hook to be one.
    static let parameterValues = ["name": "Todo", "hook": "beforeSave"]

    /// Every route of a server built as `makeApplication` builds it, as `METHOD /path`.
    private static func routes() async throws -> [(method: HTTPRequest.Method, path: String)] {
        let router = try await OpenAPITests.serverRouter()
        return router.routes.map { (method: $0.method, path: "\($0.path)".hasPrefix("/") ? "\($0.path)" : "/\($0.path)") }
    }

    /// A path that `pattern` (`/1.1/classes/{className}`) matches: each parameter and wildcard
    /// filled with a made-up value.
    private static func concrete(_ pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            if segment.hasPrefix("{") { return parameterValues[String(segment.dropFirst().dropLast())] ?? "x1" }
            if segment == "*" { return "x1" }
            if segment == "**" { return "x1/x2" }
            return String(segment)
        }.joined(separator: "/")
    }

    @Test func theRoutesAnsweringWithoutKeysAreExactlyTheOpenList() async throws {
        let routes = try await Self.routes()
        #expect(routes.count > 100)
        let open = try await TestServer.run { api in
            var open: Set<String> = []
            for route in routes {
                // A wrong hook key: a platform hook call is then refused by its route (its own
                // 401), not by the authentication step, as every other route is.
                let headers = Headers.make([("X-LC-Hook-Key", "wrong")])
                let body: String? = [.post, .put].contains(route.method) ? "{}" : nil
                let reply = try await api.send(route.method, Self.concrete(route.path), headers: headers, body: body)
                // LeanCloud's shape, or a dialect's (`/2.0`: MaxLeap's and LAS's 90102).
                let refusedByAuthentication =
                    reply.status == .unauthorized
                    && (reply["error"]?.stringValue == "Unauthorized." || reply["errorCode"]?.intValue == 90102)
                if !refusedByAuthentication { open.insert("\(route.method) \(route.path)") }
            }
            return open
        }
        #expect(open.subtracting(Self.expectedOpen).isEmpty, "open by mistake: \(open.subtracting(Self.expectedOpen).sorted())")
        #expect(Self.expectedOpen.subtracting(open).isEmpty, "closed by mistake: \(Self.expectedOpen.subtracting(open).sorted())")
    }

    @Test func eachAPIRouteIsMountedUnderBothVersions() async throws {
        let routes = try await Self.routes()
        func under(_ version: String) -> Set<String> {
            Set(routes.filter { $0.path.hasPrefix("/\(version)/") }.map { "\($0.method) \($0.path.dropFirst(version.count + 1))" })
        }
        #expect(under("1") == under("1.1"))
        #expect(under("1.1").count > 50)
    }
}
