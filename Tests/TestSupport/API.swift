import DataAPI
package import HTTPTypes
package import HummingbirdTesting
package import JSON
import NIOCore
package import Testing

/// Request headers.
package enum Headers {
    /// Headers from name/value pairs.
    package static func make(_ pairs: [(String, String)]) -> HTTPFields {
        var fields = HTTPFields()
        for (name, value) in pairs { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return fields
    }

    /// The client key.
    package static let client = make([("X-LC-Id", "app"), ("X-LC-Key", "key")])
    /// The master key.
    package static let master = make([("X-LC-Id", "app"), ("X-LC-Key", "master,master")])
    /// No credentials at all.
    package static let none = HTTPFields()
}

/// A response, with its body read and parsed.
package struct Reply: Sendable, CustomStringConvertible {
    /// The status.
    package let status: HTTPResponse.Status
    /// The headers.
    package let headers: HTTPFields
    /// The body as text.
    package let text: String
    /// The body as JSON; nil when it isn't JSON.
    package let json: JSONValue?

    /// Reads a test client response.
    package init(_ response: TestResponse) {
        self.init(status: response.status, headers: response.headers, bytes: Array(response.body.readableBytesView))
    }

    /// A reply read by another client than the test client.
    package init(status: HTTPResponse.Status, headers: HTTPFields, bytes: [UInt8]) {
        self.status = status
        self.headers = headers
        text = String(decoding: bytes, as: UTF8.self)
        json = try? JSONValue(parsing: bytes)
    }

    /// A member of the JSON body.
    package subscript(key: String) -> JSONValue? { json?[key] }

    /// The header with this name.
    package func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }

    /// The `results` of a query answer.
    package var results: [JSONValue] { json?["results"]?.arrayValue ?? [] }

    /// The objectId of a creation answer.
    package var objectId: String? { json?["objectId"]?.stringValue }

    /// The status code and the body, for messages.
    package var description: String { "\(status.code) \(text)" }
}

/// The client side of a test: requests to its server, in process or over a socket.
package struct API: Sendable {
    /// Hummingbird's test client the requests go through.
    package let client: any TestClientProtocol

    /// A client over Hummingbird's test client (a test that builds its own application).
    package init(client: any TestClientProtocol) {
        self.client = client
    }

    /// The port the server listens on. Only a server run with `transport: .socket` has one: in
    /// process there is none, and the test is told so (port 0 then refuses every connection).
    package var port: Int {
        guard let port = client.port else {
            Issue.record("This test needs a port: run its server with `transport: .socket`.")
            return 0
        }
        return port
    }

    /// Sends a request with a raw body (JSON content type unless `headers` says otherwise).
    @discardableResult
    package func send(
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
    package func send(
        _ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = Headers.client, json: JSONValue
    ) async throws -> Reply {
        try await send(method, uri, headers: headers, body: json.jsonString)
    }

    /// Sends a GET.
    @discardableResult
    package func get(_ uri: String, headers: HTTPFields = Headers.client) async throws -> Reply {
        try await send(.get, uri, headers: headers)
    }

    /// Sends a POST with a JSON body.
    @discardableResult
    package func post(_ uri: String, headers: HTTPFields = Headers.client, _ json: JSONValue) async throws -> Reply {
        try await send(.post, uri, headers: headers, json: json)
    }

    /// Sends a PUT with a JSON body.
    @discardableResult
    package func put(_ uri: String, headers: HTTPFields = Headers.client, _ json: JSONValue) async throws -> Reply {
        try await send(.put, uri, headers: headers, json: json)
    }

    /// Sends a DELETE.
    @discardableResult
    package func delete(_ uri: String, headers: HTTPFields = Headers.client) async throws -> Reply {
        try await send(.delete, uri, headers: headers)
    }

    /// Creates an object, expecting 201, and returns its id.
    package func create(
        _ className: String, _ fields: JSONValue, headers: HTTPFields = Headers.client,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let reply = try await post("/1.1/classes/\(className)", headers: headers, fields)
        #expect(reply.status == .created, "create \(className): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply.objectId, "create \(className): \(reply)", sourceLocation: sourceLocation)
    }

    /// The object as `GET /1.1/classes/{class}/{id}` answers it (`{}` when it doesn't exist).
    package func fetch(
        _ className: String, _ id: String, _ parameters: [String: String] = [:], headers: HTTPFields = Headers.client,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> JSONValue {
        let reply = try await get("/1.1/classes/\(className)/\(id)" + queryString(parameters), headers: headers)
        #expect(reply.status == .ok, "fetch \(className)/\(id): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply.json, sourceLocation: sourceLocation)
    }

    /// `GET /1.1/classes/{class}` with query parameters.
    package func find(
        _ className: String, _ parameters: [String: String] = [:], headers: HTTPFields = Headers.client
    ) async throws -> Reply {
        try await get("/1.1/classes/\(className)" + queryString(parameters), headers: headers)
    }

    /// The results of a query that must succeed.
    package func results(
        _ className: String, _ parameters: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [JSONValue] {
        let reply = try await find(className, parameters)
        #expect(reply.status == .ok, "query \(className) \(parameters): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply["results"]?.arrayValue, "query: \(reply)", sourceLocation: sourceLocation)
    }

    /// The results of a `where` query (given as JSON text), ordered by creation.
    package func matching(
        _ className: String, _ whereJSON: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [JSONValue] {
        try await results(className, ["where": whereJSON, "order": "createdAt"], sourceLocation: sourceLocation)
    }

    /// How many objects of the class there are; nil when the class doesn't exist (404, 101).
    package func count(_ className: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int? {
        let reply = try await find(className, ["count": "1", "limit": "0"])
        if reply.status == .notFound, reply["code"] == 101 { return nil }
        #expect(reply.status == .ok, "count \(className): \(reply)", sourceLocation: sourceLocation)
        return try #require(reply["count"]?.intValue, "count: \(reply)", sourceLocation: sourceLocation).asInt
    }
}
