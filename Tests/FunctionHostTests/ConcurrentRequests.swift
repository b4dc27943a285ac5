import DataAPI
import HTTPTypes
import HummingbirdTesting
import JSON
import NIOCore

/// Requests sent all at once, each on its own connection (one connection would serialize them):
/// what an attacker racing a check against its count does.
enum ConcurrentRequests {
    /// One request: the port of the host it goes to, its method, path, headers and JSON body.
    struct Request: Sendable {
        var port: Int
        var method: HTTPRequest.Method = .post
        var path: String
        var headers: HTTPFields = Headers.client
        var body: JSONValue
    }

    /// Sends every request at the same time and returns the `code` of each answer (0 for a 2xx),
    /// in no particular order.
    static func codes(_ requests: [Request]) async throws -> [Int64] {
        try await withThrowingTaskGroup(of: Int64.self) { group in
            for request in requests {
                group.addTask {
                    try await TestClient.withClient(host: "127.0.0.1", port: request.port) { client in
                        var headers = request.headers
                        headers[.contentType] = "application/json"
                        let response = try await client.execute(
                            .init(request.path, method: request.method, headers: headers, body: ByteBuffer(string: request.body.jsonString)))
                        if (200..<300).contains(response.status.code) { return 0 }
                        let body = try response.body.map { try JSONValue(parsing: $0.readableBytesView) }
                        return body?["code"]?.intValue ?? -Int64(response.status.code)
                    }
                }
            }
            var codes: [Int64] = []
            for try await code in group { codes.append(code) }
            return codes
        }
    }
}
