import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import TestSupport
import Testing

@testable import FunctionHost

/// `/openapi.json` describes every route the router serves: each route of the server, method
/// and path, is checked against the document.
@Suite struct OpenAPITests {
    /// `/1.1/classes/:className` (Hummingbird's form) as OpenAPI writes it: `/1.1/classes/{className}`.
    static func openAPIPath(_ routerPath: String) -> String {
        var path = routerPath.hasPrefix("/") ? routerPath : "/" + routerPath
        path = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            if segment.hasPrefix(":") { return "{" + segment.dropFirst() + "}" }
            if segment == "**" { return "{path}" }
            if segment == "*" { return "{wildcard}" }
            return String(segment)
        }.joined(separator: "/")
        return path
    }

    /// The router a server builds (`FunctionHostServer.makeRouter`), over a fresh data directory.
    static func serverRouter() async throws -> Router<HostRequestContext> {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = HostConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory, functionsDirectory: directory, keys: TestServer.keys)
        configuration.database = TestDatabase.location(for: directory)
        let logger = Logger(label: "openapi")
        let databases = try await Databases.open(configuration, logger: logger)
        let services = try await FunctionHostServer.makeServices(configuration: configuration, databases: databases, logger: logger)
        let router = FunctionHostServer.makeRouter(configuration: configuration, services: services)
        await databases.close()
        return router
    }

    @Test func everyRouteOfTheRouterIsInTheDocument() async throws {
        let router = try await Self.serverRouter()

        let document = OpenAPIDocument.build(version: "test")
        #expect(document["openapi"]?.stringValue?.hasPrefix("3.") == true)
        let paths = try #require(document["paths"]?.objectValue)
        var missing: [String] = []
        for route in router.routes {
            let path = Self.openAPIPath("\(route.path)")
            let method = route.method.rawValue.lowercased()
            if paths[path]?[method] == nil { missing.append("\(route.method) \(path)") }
        }
        #expect(router.routes.count > 100)
        #expect(missing.isEmpty, "routes the document leaves out: \(missing.sorted())")
        // And nothing the router doesn't serve.
        let served = Set(router.routes.map { "\($0.method.rawValue.lowercased()) \(Self.openAPIPath("\($0.path)"))" })
        var extra: [String] = []
        for (path, item) in paths {
            for method in (item.objectValue ?? [:]).keys where ["get", "post", "put", "delete", "head", "patch"].contains(method) {
                if !served.contains("\(method) \(path)") { extra.append("\(method) \(path)") }
            }
        }
        #expect(extra.isEmpty, "operations no route serves: \(extra.sorted())")
    }

    @Test func theDocumentIsServedWithoutKeys() async throws {
        try await TestServer.run { api in
            let reply = try await api.get("/openapi.json", headers: Headers.none)
            #expect(reply.status == .ok)
            #expect(reply["openapi"]?.stringValue?.hasPrefix("3.") == true)
            #expect(reply["paths"]?["/1.1/classes/{className}"]?["post"] != nil)
        }
    }
}
