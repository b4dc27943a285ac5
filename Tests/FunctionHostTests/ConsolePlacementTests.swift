import ArgumentParser
import AsyncHTTPClient
import Foundation
import HTTPTypes
import JSON
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import FunctionHost
@testable import functionhost

/// `--console off|main|admin`: off, `/console` is an unknown path; admin, it is served on the
/// admin port only, with its login and its API.
@Suite struct ConsolePlacementTests {
    @Test func offServesNoConsole() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.console.placement = .off }) { api in
            expectError(try await api.get("/console", headers: Headers.none), code: 401, status: .unauthorized)
            #expect(try await api.get("/console", headers: Headers.master).status == .notFound)
            let login = try await api.send(
                .post, "/console/login", headers: Headers.make([("Origin", ConsoleBrowser.origin)]), json: ["masterKey": "master"])
            expectError(login, code: 401, status: .unauthorized)
        }
    }

    @Test func adminServesItOnTheAdminPortOnly() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let adminPort = Ports.free()
        let configure: (inout HostConfiguration) -> Void = {
            $0.adminPort = adminPort
            $0.console.placement = .admin
        }
        try await TestServer.run(dataDirectory: directory, configure: configure) { api in
            #expect(try await api.get("/console", headers: Headers.master).status == .notFound)
            let base = "http://127.0.0.1:\(adminPort)"
            // The admin port starts beside the main one: the shared client retries a refused
            // connection until it listens.
            let page = try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/console"), timeout: .seconds(30))
            #expect(page.status == .ok && page.headers.first(name: "Content-Security-Policy") != nil)
            var login = HTTPClientRequest(url: base + "/console/login")
            login.method = .POST
            login.headers.add(name: "Origin", value: base)
            login.headers.add(name: "Content-Type", value: "application/json")
            login.body = .bytes(ByteBuffer(string: #"{"masterKey":"master"}"#))
            let loggedIn = try await HTTPClient.shared.execute(login, timeout: .seconds(30))
            #expect(loggedIn.status == .ok)
            let cookie = try #require(loggedIn.headers["Set-Cookie"].first?.split(separator: ";").first.map(String.init))
            let answer = try JSONValue(parsing: try await loggedIn.body.collect(upTo: 1 << 16).readableBytesView)
            var schemas = HTTPClientRequest(url: base + "/console/api/1.1/schemas")
            schemas.headers.add(name: "Cookie", value: cookie)
            schemas.headers.add(name: "X-Console-CSRF", value: try #require(answer["csrfToken"]?.stringValue))
            #expect(try await HTTPClient.shared.execute(schemas, timeout: .seconds(30)).status == .ok)
            // Metrics are still there, without keys.
            #expect(try await HTTPClient.shared.execute(HTTPClientRequest(url: base + "/metrics"), timeout: .seconds(30)).status == .ok)
        }
    }

    @Test func theOptionIsReadAndChecked() throws {
        var configuration = HostConfiguration(dataDirectory: "/tmp/unused", keys: TestServer.keys)
        try ConsoleCommandOptions.parse([]).apply(to: &configuration)
        #expect(configuration.console.placement == .main)
        try ConsoleCommandOptions.parse(["--console", "off"]).apply(to: &configuration)
        #expect(configuration.console.placement == .off)
        #expect(throws: ValidationError.self) { try ConsoleCommandOptions.parse(["--console", "admin"]).apply(to: &configuration) }
        #expect(throws: ValidationError.self) { try ConsoleCommandOptions.parse(["--console", "public"]).apply(to: &configuration) }
        configuration.adminPort = 9000
        try ConsoleCommandOptions.parse(["--console", "admin"]).apply(to: &configuration)
        #expect(configuration.console.placement == .admin)
        // The app's pages under a prefix share the main port's origin: no console there.
        configuration.engineWeb.prefixes[.production] = "/app"
        try ConsoleCommandOptions.parse([]).apply(to: &configuration)
        #expect(configuration.console.placement == .off)
        #expect(throws: ValidationError.self) { try ConsoleCommandOptions.parse(["--console", "main"]).apply(to: &configuration) }
        try ConsoleCommandOptions.parse(["--console", "admin"]).apply(to: &configuration)
        #expect(configuration.console.placement == .admin)
    }
}
