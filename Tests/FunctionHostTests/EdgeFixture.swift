import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import JSON
import Logging
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import FunctionHost

/// What the edge attack suites share: requests the test client can't send (a `Host` of the
/// attacker's choosing), and servers on their own data directories.
enum EdgeFixture {
    /// Sends a request through AsyncHTTPClient, which sends the `Host` it is given (the test
    /// client always says `localhost`).
    static func send(
        port: Int, _ method: HTTPMethod, _ path: String, host: String, headers: [(String, String)] = client,
        body: String? = nil, contentType: String = "application/json"
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        request.headers.add(name: "Host", value: host)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        var fields = HTTPFields()
        for header in response.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        return Reply(status: HTTPResponse.Status(code: Int(response.status.code)), headers: fields, bytes: Array(bytes.readableBytesView))
    }

    /// The client key, as pairs.
    static let client = [("X-LC-Id", "app"), ("X-LC-Key", "key")]

    /// Runs a server on a fresh data directory and hands the test both.
    static func run(
        functions: FunctionRegistry = FunctionRegistry(), scripts: [String: String] = [:],
        transport: TestServer.Transport = .inProcess, configure: @escaping (inout HostConfiguration) -> Void = { _ in },
        logger: CapturedLog? = nil,
        _ body: @Sendable (API, String) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, source) in scripts { try source.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8) }
        var log = Logger(label: "functionhost")
        if let logger { log = Logger(label: "functionhost", factory: { _ in logger.handler }) }
        try await TestServer.run(
            dataDirectory: directory, functions: functions, functionsDirectory: directory, transport: transport,
            configure: configure, logger: log
        ) { api in
            try await body(api, directory)
        }
    }
}
