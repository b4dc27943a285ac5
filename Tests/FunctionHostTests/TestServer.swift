import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import Logging
import NIOCore
import Testing

@testable import FunctionHost

/// Runs a real FunctionHost server on loopback, on its own temporary data directory, for the
/// duration of one test.
enum TestServer {
    /// The keys every test server uses.
    static let keys = AppKeys(appId: "app", appKey: "key", masterKey: "master", hookKey: "hook")

    /// A new, empty directory under the temporary directory.
    static func makeDataDirectory() throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("FunctionHostTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// Starts a server on a fresh data directory, runs `body` against it over HTTP, stops the
    /// server and removes the directory.
    static func run<Value: Sendable>(
        functions: FunctionRegistry = FunctionRegistry(), _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        let directory = try makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await run(dataDirectory: directory, functions: functions, body)
    }

    /// Starts a server on `dataDirectory` (which is kept), runs `body`, stops the server.
    static func run<Value: Sendable>(
        dataDirectory: String, keys: AppKeys = TestServer.keys, functions: FunctionRegistry = FunctionRegistry(),
        functionsDirectory: String? = nil, javaScriptTimeout: Duration = .seconds(15),
        configure: (inout HostConfiguration) -> Void = { _ in }, logger: Logger = Logger(label: "functionhost"),
        _ body: @Sendable (API) async throws -> Value
    ) async throws -> Value {
        // Without a functions directory of its own, a test loads no JavaScript.
        var configuration = HostConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: dataDirectory,
            functionsDirectory: functionsDirectory ?? dataDirectory, keys: keys, functions: functions)
        configuration.javaScriptTimeout = javaScriptTimeout
        configuration.database = TestDatabase.location(for: dataDirectory)
        configure(&configuration)
        let app = try await FunctionHostServer.makeApplication(configuration: configuration, logger: logger)
        return try await app.test(.live) { client in
            try await body(API(client: client))
        }
    }
}

/// Request headers.
enum Headers {
    /// Headers from name/value pairs.
    static func make(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    /// The client key.
    static let client = make([("X-LC-Id", "app"), ("X-LC-Key", "key")])
    /// The master key.
    static let master = make([("X-LC-Id", "app"), ("X-LC-Key", "master,master")])
    /// No credentials at all.
    static let none = HTTPFields()
}

/// A response, with its body read and parsed.
struct Reply: Sendable, CustomStringConvertible {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    /// The body as text.
    let text: String
    /// The body as JSON; nil when it isn't JSON.
    let json: JSONValue?

    init(_ response: TestResponse) {
        status = response.status
        headers = response.headers
        let bytes = Array(response.body.readableBytesView)
        text = String(decoding: bytes, as: UTF8.self)
        json = try? JSONValue(parsing: bytes)
    }

    /// A member of the JSON body.
    subscript(key: String) -> JSONValue? { json?[key] }

    /// The header with this name.
    func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }

    /// The `results` of a query answer.
    var results: [JSONValue] { json?["results"]?.arrayValue ?? [] }

    /// The objectId of a creation answer.
    var objectId: String? { json?["objectId"]?.stringValue }

    var description: String { "\(status.code) \(text)" }
}

/// The client side of a test: requests to the live server.
struct API: Sendable {
    let client: any TestClientProtocol

    /// The port the server listens on.
    var port: Int { client.port! }

    /// Sends a request with a raw body (JSON content type unless `headers` says otherwise).
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = Headers.client, body: String? = nil
    ) async throws -> Reply {
        var headers = headers
        if body != nil, headers[.contentType] == nil { headers[.contentType] = "application/json" }
        return try await client.execute(
            uri: uri, method: method, headers: headers, body: body.map { ByteBuffer(string: $0) }
        ) { Reply($0) }
    }

    /// Sends a request with a JSON body.
    @discardableResult
    func send(
        _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = Headers.client, json: JSONValue
    ) async throws -> Reply {
        try await send(method, uri, headers: headers, body: json.jsonString)
    }

    @discardableResult
    func get(_ uri: String, headers: HTTPFields = Headers.client) async throws -> Reply {
        try await send(.get, uri, headers: headers)
    }

    @discardableResult
    func post(_ uri: String, headers: HTTPFields = Headers.client, _ json: JSONValue) async throws -> Reply {
        try await send(.post, uri, headers: headers, json: json)
    }

    @discardableResult
    func put(_ uri: String, headers: HTTPFields = Headers.client, _ json: JSONValue) async throws -> Reply {
        try await send(.put, uri, headers: headers, json: json)
    }

    @discardableResult
    func delete(_ uri: String, headers: HTTPFields = Headers.client) async throws -> Reply {
        try await send(.delete, uri, headers: headers)
    }

    /// Creates an object, expecting 201, and returns its id.
    func create(
        _ className: String, _ fields: JSONValue, headers: HTTPFields = Headers.client,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let reply = try await post("/1.1/classes/\(className)", headers: headers, fields)
        #expect(reply.status == .created, "create \(className): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply.objectId, "create \(className): \(reply)", sourceLocation: sourceLocation)
    }

    /// The object as `GET /1.1/classes/{class}/{id}` answers it (`{}` when it doesn't exist).
    func fetch(
        _ className: String, _ id: String, _ parameters: [String: String] = [:], headers: HTTPFields = Headers.client,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let reply = try await get("/1.1/classes/\(className)/\(id)" + queryString(parameters), headers: headers)
        #expect(reply.status == .ok, "fetch \(className)/\(id): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply.json, sourceLocation: sourceLocation)
    }

    /// `GET /1.1/classes/{class}` with query parameters.
    func find(
        _ className: String, _ parameters: [String: String] = [:], headers: HTTPFields = Headers.client
    ) async throws -> Reply {
        try await get("/1.1/classes/\(className)" + queryString(parameters), headers: headers)
    }

    /// The results of a query that must succeed.
    func results(
        _ className: String, _ parameters: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [JSONValue] {
        let reply = try await find(className, parameters)
        #expect(reply.status == .ok, "query \(className) \(parameters): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply["results"]?.arrayValue, "query: \(reply)", sourceLocation: sourceLocation)
    }

    /// The results of a `where` query (given as JSON text), ordered by creation.
    func matching(
        _ className: String, _ whereJSON: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [JSONValue] {
        try await results(className, ["where": whereJSON, "order": "createdAt"], sourceLocation: sourceLocation)
    }

    /// How many objects of the class there are; nil when the class doesn't exist (404, 101).
    func count(_ className: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int? {
        let reply = try await find(className, ["count": "1", "limit": "0"])
        if reply.status == .notFound, reply["code"] == 101 { return nil }
        #expect(reply.status == .ok, "count \(className): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply["count"]?.intValue, "count: \(reply)", sourceLocation: sourceLocation).asInt
    }
}

/// `?a=1&b=2`, each part percent-encoded; empty for no parameters.
func queryString(_ parameters: [String: String]) -> String {
    if parameters.isEmpty { return "" }
    return "?" + parameters.keys.sorted().map { key in "\(encode(key))=\(encode(parameters[key]!))" }
        .joined(separator: "&")
}

/// Percent-encodes everything but letters and digits.
func encode(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
}

/// Parses JSON text written by the test itself.
func json(_ text: String) throws -> JSONValue {
    try JSONValue(parsing: text)
}

extension Int64 {
    var asInt: Int { Int(self) }
}

/// Checks a LeanCloud error answer: a 4xx status (never 500), a body that is exactly
/// `{"code": <number>, "error": <string>}`, and the expected code.
func expectError(
    _ reply: Reply, code: Int64, status: HTTPResponse.Status? = nil, sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect((400..<500).contains(reply.status.code), "expected a 4xx answer, got \(reply)", sourceLocation: sourceLocation)
    if let status {
        #expect(reply.status == status, "status of \(reply)", sourceLocation: sourceLocation)
    }
    #expect(reply["code"] == .int(code), "code of \(reply)", sourceLocation: sourceLocation)
    guard case .string(let message)? = reply["error"] else {
        Issue.record("no error message in \(reply)", sourceLocation: sourceLocation)
        return
    }
    #expect(!message.isEmpty, sourceLocation: sourceLocation)
    #expect(
        Set(reply.json?.objectValue.map { Array($0.keys) } ?? []) == ["code", "error"], "members of \(reply)",
        sourceLocation: sourceLocation)
}

/// The member names of a JSON object (empty for anything else).
func fieldNames(_ value: JSONValue?) -> Set<String> {
    Set(value?.objectValue.map { Array($0.keys) } ?? [])
}

/// Whether `text` is a canonical LeanCloud date: `2024-01-02T03:04:05.678Z`.
func isCanonicalISODate(_ text: String?) -> Bool {
    guard let text, text.utf8.count == 24 else { return false }
    return text.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil
}

/// Whether `text` looks like an object id: 24 lowercase hex digits.
func isObjectId(_ text: String?) -> Bool {
    guard let text else { return false }
    return text.wholeMatch(of: /[0-9a-f]{24}/) != nil
}

/// A Pointer value.
func pointer(_ className: String, _ id: String) -> JSONValue {
    ["__type": "Pointer", "className": .string(className), "objectId": .string(id)]
}

/// A Date value.
func date(_ iso: String) -> JSONValue {
    ["__type": "Date", "iso": .string(iso)]
}

/// A field operation.
func op(_ name: String, _ members: [String: JSONValue] = [:]) -> JSONValue {
    var object = members
    object["__op"] = .string(name)
    return .object(object)
}

/// MD5 (RFC 1321), written here so the tests check the server's signatures against an
/// implementation of their own.
enum MD5 {
    private static let shifts: [UInt32] = [
        7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
        5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
        4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
        6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
    ]

    private static let constants: [UInt32] = (0..<64).map { i in
        UInt32(floor(abs(sin(Double(i + 1))) * 4_294_967_296.0))
    }

    /// The digest of the UTF-8 text, as 32 lowercase hex digits.
    static func hex(_ text: String) -> String {
        var message = Array(text.utf8)
        let bitLength = UInt64(message.count) &* 8
        message.append(0x80)
        while message.count % 64 != 56 { message.append(0) }
        for i in 0..<8 { message.append(UInt8(truncatingIfNeeded: bitLength >> (8 * UInt64(i)))) }

        var a0: UInt32 = 0x6745_2301
        var b0: UInt32 = 0xefcd_ab89
        var c0: UInt32 = 0x98ba_dcfe
        var d0: UInt32 = 0x1032_5476
        for chunk in stride(from: 0, to: message.count, by: 64) {
            var words = [UInt32](repeating: 0, count: 16)
            for i in 0..<16 {
                let base = chunk + 4 * i
                words[i] =
                    UInt32(message[base]) | UInt32(message[base + 1]) << 8 | UInt32(message[base + 2]) << 16
                    | UInt32(message[base + 3]) << 24
            }
            var a = a0
            var b = b0
            var c = c0
            var d = d0
            for i in 0..<64 {
                var f: UInt32
                let g: Int
                switch i {
                case 0..<16:
                    f = (b & c) | (~b & d)
                    g = i
                case 16..<32:
                    f = (d & b) | (~d & c)
                    g = (5 * i + 1) % 16
                case 32..<48:
                    f = b ^ c ^ d
                    g = (3 * i + 5) % 16
                default:
                    f = c ^ (b | ~d)
                    g = (7 * i) % 16
                }
                f = f &+ a &+ constants[i] &+ words[g]
                a = d
                d = c
                c = b
                b = b &+ ((f << shifts[i]) | (f >> (32 - shifts[i])))
            }
            a0 = a0 &+ a
            b0 = b0 &+ b
            c0 = c0 &+ c
            d0 = d0 &+ d
        }
        var out = ""
        for word in [a0, b0, c0, d0] {
            for byte in 0..<4 {
                let value = UInt8(truncatingIfNeeded: word >> (8 * UInt32(byte)))
                out += (value < 16 ? "0" : "") + String(value, radix: 16)
            }
        }
        return out
    }
}
