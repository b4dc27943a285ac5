package import AsyncHTTPClient
import DataAPI
package import FunctionHost
import Foundation
package import HTTPTypes
import HummingbirdTesting
package import JSON
import NIOCore
import NIOHTTP1
package import Testing

/// What the file suites share: a server with its data directory, uploads, and looks at what
/// is on disk.
package enum FileFixture {
    /// Runs a server on a fresh data directory and hands the test both.
    package static func run(
        functions: FunctionRegistry = FunctionRegistry(), functionsDirectory: String? = nil,
        transport: TestServer.Transport = .inProcess, configure: (inout HostConfiguration) -> Void = { _ in },
        _ body: @Sendable (API, String) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(
            dataDirectory: directory, functions: functions, functionsDirectory: functionsDirectory, transport: transport,
            configure: configure
        ) { api in
            try await body(api, directory)
        }
    }

    /// Headers with a Content-Type for a raw upload.
    package static func typed(_ type: String, _ headers: HTTPFields = Headers.client) -> HTTPFields {
        var headers = headers
        headers[.contentType] = type
        return headers
    }

    /// Headers with one more field.
    package static func adding(_ name: String, _ value: String, to headers: HTTPFields = Headers.none) -> HTTPFields {
        var headers = headers
        headers[HTTPField.Name(name)!] = value
        return headers
    }

    /// Uploads `body` as `/1.1/files/{name}`, expecting 201, and returns the file's JSON.
    package static func upload(
        _ api: API, _ name: String, _ body: String, type: String = "text/plain", headers: HTTPFields = Headers.client,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let reply = try await api.send(.post, "/1.1/files/\(name)", headers: typed(type, headers), body: body)
        #expect(reply.status == .created, "upload \(name): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply.json, "upload \(name): \(reply)", sourceLocation: sourceLocation)
    }

    /// The path (and query) of a URL the server handed out.
    package static func path(_ url: JSONValue?, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let text = try #require(url?.stringValue, "no url", sourceLocation: sourceLocation)
        let parsed = try #require(URL(string: text), "not a URL: \(text)", sourceLocation: sourceLocation)
        return parsed.path
    }

    /// A request whose body is raw bytes, answered with its status, headers and raw body.
    package static func exchange(
        _ api: API, _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = Headers.none, body: [UInt8]? = nil
    ) async throws -> (status: HTTPResponse.Status, headers: HTTPFields, body: [UInt8]) {
        try await api.client.execute(uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) }) {
            ($0.status, $0.headers, Array($0.body.readableBytesView))
        }
    }

    /// The keys stored under `<data>/files`, besides the `.incoming` directory.
    package static func storedKeys(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory + "/files").filter { $0 != ".incoming" }.sorted()
    }

    /// What is left in `<data>/files/.incoming` (partial uploads).
    package static func incoming(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory + "/files/.incoming")
    }

    /// How many `_File` objects there are (none when the class was never written).
    package static func fileCount(_ api: API, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        try await api.count("_File", sourceLocation: sourceLocation) ?? 0
    }

    /// Signs a user up: its id and session headers.
    package static func signUp(_ api: API, _ name: String) async throws -> (id: String, session: HTTPFields) {
        let reply = try await api.post("/1.1/users", ["username": .string(name), "password": "secret"])
        #expect(reply.status == .created, "\(reply)")
        return (try #require(reply.objectId), Headers.session(try #require(reply["sessionToken"]?.stringValue)))
    }

    /// Ten bytes whose ranges are easy to read.
    package static let digits = "0123456789"

    /// A streamed upload through AsyncHTTPClient (the test client sends whole buffers only):
    /// `POST /1.1/files/{name}` with the client key, as bytes of no particular type.
    package static func streamedUpload(port: Int, name: String) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/1.1/files/\(name)")
        request.method = .POST
        request.headers.add(name: "X-LC-Id", value: "app")
        request.headers.add(name: "X-LC-Key", value: "key")
        request.headers.add(name: "Content-Type", value: "application/octet-stream")
        return request
    }
}
