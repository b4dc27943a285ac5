import AsyncHTTPClient
import Foundation
import JSON
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

/// `serve --open-user-queries`, as the README names it: a client with the app key lists every
/// user, as on a new LeanCloud app; without it, a client finds none but its own.
@Suite struct OpenUserQueriesServeTests {
    /// One request with the app key of the server in `directory`, answered as JSON.
    static func send(
        _ method: HTTPMethod, _ path: String, port: Int, directory: String, body: JSONValue? = nil
    ) async throws -> (status: Int, json: JSONValue) {
        let keys = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/keys.json"))))
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        request.headers.add(name: "X-LC-Id", value: keys["appId"]?.stringValue ?? "")
        request.headers.add(name: "X-LC-Key", value: keys["appKey"]?.stringValue ?? "")
        request.headers.add(name: "Content-Type", value: "application/json")
        if let body { request.body = .bytes(ByteBuffer(bytes: body.jsonBytes)) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), try JSONValue(parsing: Array(buffer: bytes)))
    }

    /// Starts `serve` with `options`, signs a user up and lists `_User` as an anonymous client.
    static func usersListed(_ options: [String]) async throws -> [JSONValue] {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = Ports.free()
        let (process, text) = try await StartupBannerTests.serve(
            ["--port", String(port), "--data-dir", directory + "/data", "--functions", directory] + options)
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        try #require(process.isRunning, "serve \(options) did not start: \(text)")
        let signUp = try await send(
            .POST, "/1.1/users", port: port, directory: directory + "/data", body: ["username": "ada", "password": "secret1"])
        #expect(signUp.status == 201, "\(signUp)")
        let listed = try await send(.GET, "/1.1/classes/_User", port: port, directory: directory + "/data")
        #expect(listed.status == 200, "\(listed)")
        guard case .array(let results)? = listed.json["results"] else { return [] }
        return results
    }

    @Test func serveTakesTheOptionTheReadmeNamesAndItOpensUserQueries() async throws {
        let opened = try await Self.usersListed(["--open-user-queries"])
        #expect(opened.map { $0["username"] } == ["ada"], "\(opened)")
        #expect(opened.allSatisfy { $0["password"] == nil && $0["sessionToken"] == nil }, "\(opened)")
        // The default stays closed: an anonymous client finds no user.
        #expect(try await Self.usersListed([]).isEmpty)
    }
}
