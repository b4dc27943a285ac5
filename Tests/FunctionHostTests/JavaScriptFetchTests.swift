import DataAPI
import Foundation
import TestSupport
import Testing

@testable import FunctionHost

/// `fetch` and `AV.Cloud.httpRequest` from JavaScript, through the host's allow-list, against a
/// real server on loopback.
@Suite struct JavaScriptFetchTests {
    static let script = """
        AV.Cloud.define('post', async function (request) {
          var response = await fetch(request.params.url, { method: 'POST',
            headers: { 'Content-Type': 'application/json', 'X-Partner': 'yes' }, body: JSON.stringify({ n: 42 }) });
          var echo = await response.json();
          return { ok: response.ok, status: response.status, type: response.headers.get('Content-Type'),
                   method: echo.method, partner: echo.headers['x-partner'], body: echo.body };
        });
        AV.Cloud.define('legacy', function (request) {
          return AV.Cloud.httpRequest({ url: request.params.url, params: { q: 'a b' } })
            .then(function (response) { return { status: response.status, uri: response.data.uri }; });
        });
        AV.Cloud.define('refused', async function (request) {
          try { await fetch(request.params.url); return 'reached'; } catch (e) { return { code: e.code, message: e.message }; }
        });
        """

    static func run(allowing hosts: [String], _ body: @Sendable (API) async throws -> Void) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try script.write(toFile: directory + "/fetch.js", atomically: true, encoding: .utf8)
        let policy = try OutboundPolicy(allowing: hosts)
        try await TestServer.run(
            dataDirectory: directory, functionsDirectory: directory, configure: { $0.outbound[.production] = policy }, body)
    }

    @Test func listedHostsAreReachedWithFetchAndHTTPRequest() async throws {
        try await OutboundTestServer.run { server in
            try await Self.run(allowing: ["127.0.0.1"]) { api in
                let posted = try await api.post("/1.1/functions/post", ["url": .string(server.url("/echo"))])
                #expect(posted["result"]?["ok"] == true && posted["result"]?["status"] == 200, "\(posted)")
                #expect(posted["result"]?["method"] == "POST" && posted["result"]?["partner"] == "yes")
                #expect(posted["result"]?["body"] == #"{"n":42}"#, "\(posted)")
                let legacy = try await api.post("/1.1/functions/legacy", ["url": .string(server.url("/echo"))])
                #expect(legacy["result"]?["status"] == 200, "\(legacy)")
                #expect(legacy["result"]?["uri"] == "/echo?q=a%20b", "\(legacy)")
            }
        }
    }

    @Test func hostsOffTheListAreRefusedInsideTheScript() async throws {
        try await OutboundTestServer.run { server in
            try await Self.run(allowing: ["api.example.com"]) { api in
                let refused = try await api.post("/1.1/functions/refused", ["url": .string(server.url("/echo"))])
                #expect(refused["result"]?["code"] == 1, "refused by the allow-list, not a connection failure: \(refused)")
                #expect(refused["result"]?["message"]?.stringValue?.contains("127.0.0.1") == true, "\(refused)")
                #expect(server.requests.isEmpty, "no connection was made")
            }
        }
    }
}
