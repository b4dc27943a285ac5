import Foundation
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `GET /v1/route`, the realtime router the SDKs ask before opening their socket: it names the
/// realtime endpoint under the configured public URL, else under the address the connection
/// reached, and never under the `Host` the client wrote.
@Suite struct RealtimeRouteLookupTests {
    /// A lookup as the JS SDK makes it, on a socket of its own: no app headers, its query, and
    /// here a forged `Host`. Answers the JSON body.
    static func lookUp(_ api: API) async throws -> JSONValue {
        let connection = try RawConnection(port: api.port)
        try connection.send("GET /v1/route?appId=app&secure=1&_t=1 HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
        let response = try await connection.readUntilClosed()
        #expect(response.hasPrefix("HTTP/1.1 200"))
        #expect(!response.contains("evil.example"))
        let body = try #require(response.components(separatedBy: "\r\n\r\n").last)
        return try JSONValue(parsing: body)
    }

    @Test func theRouteIsThePublicURLsWebSocket() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, transport: .socket, configure: { $0.publicURL = "https://lq.example.com" }) { api in
            let reply = try await Self.lookUp(api)
            #expect(reply["server"]?.stringValue == "wss://lq.example.com/realtime")
            #expect(reply["secondary"]?.stringValue == "wss://lq.example.com/realtime")
            #expect(reply["ttl"]?.intValue == 3600)
        }
    }

    @Test func withoutAPublicURLTheRouteIsTheAddressTheConnectionReached() async throws {
        try await TestServer.run(transport: .socket) { api in
            let reply = try await Self.lookUp(api)
            #expect(reply["server"]?.stringValue == "ws://127.0.0.1:\(api.port)/realtime")
        }
    }

    @Test func endpointURLsKeepTheSchemesSecurity() {
        #expect(RealtimeRouteLookup.endpointURL(base: "https://a.example/") == "wss://a.example/realtime")
        #expect(RealtimeRouteLookup.endpointURL(base: "http://10.0.0.2:3000") == "ws://10.0.0.2:3000/realtime")
        #expect(RealtimeRouteLookup.endpointURL(base: "https://a.example/api") == "wss://a.example/api/realtime")
    }
}
