import DataAPI
package import HTTPTypes
import HummingbirdTesting
package import JSON
import NIOCore

/// Requests sent all at once: what an attacker racing a check against its count does.
///
/// In process, the router serves them concurrently as they come. Over a socket, each goes on a
/// connection of its own (the test client's one connection would serialize them).
package enum ConcurrentRequests {
    /// One request: the host it goes to, its method, path, headers and JSON body.
    package struct Request: Sendable {
        /// The host's client.
        package var api: API
        /// The method.
        package var method: HTTPRequest.Method = .post
        /// The path, with its query.
        package var path: String
        /// The headers (the JSON content type is added).
        package var headers: HTTPFields = Headers.client
        /// The JSON body.
        package var body: JSONValue

        /// A request to `api`'s host.
        package init(
            api: API, method: HTTPRequest.Method = .post, path: String, headers: HTTPFields = Headers.client, body: JSONValue
        ) {
            self.api = api
            self.method = method
            self.path = path
            self.headers = headers
            self.body = body
        }
    }

    /// Sends every request at the same time and returns the `code` of each answer (0 for a 2xx),
    /// in no particular order.
    package static func codes(_ requests: [Request]) async throws -> [Int64] {
        try await withThrowingTaskGroup(of: Int64.self) { group in
            for request in requests {
                group.addTask { try await code(of: request) }
            }
            var codes: [Int64] = []
            for try await code in group { codes.append(code) }
            return codes
        }
    }

    /// The `code` of one request's answer (0 for a 2xx; minus the status without a code).
    private static func code(of request: Request) async throws -> Int64 {
        guard let port = request.api.client.port else {
            let reply = try await request.api.send(request.method, request.path, headers: request.headers, json: request.body)
            return code(status: reply.status, body: reply.json)
        }
        return try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
            var headers = request.headers
            headers[.contentType] = "application/json"
            let response = try await client.execute(
                .init(request.path, method: request.method, headers: headers, body: ByteBuffer(string: request.body.jsonString)))
            return code(status: response.status, body: try response.body.map { try JSONValue(parsing: $0.readableBytesView) })
        }
    }

    private static func code(status: HTTPResponse.Status, body: JSONValue?) -> Int64 {
        if (200..<300).contains(status.code) { return 0 }
        return body?["code"]?.intValue ?? -Int64(status.code)
    }
}
