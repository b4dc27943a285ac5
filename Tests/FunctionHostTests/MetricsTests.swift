import AsyncHTTPClient
import DataAPI
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import FunctionHost

/// `/metrics`: what a Prometheus server scrapes, behind the master key on the main port and
/// without keys on the admin port.
@Suite struct MetricsTests {
    static let cloudCode = """
        AV.Cloud.define('hello', function () { return 'hi'; });
        AV.Cloud.define('fails', function () { throw new AV.Cloud.Error('no', { code: 400 }); });
        AV.Cloud.beforeSave('Note', function (request) { request.object.set('checked', true); });
        """

    /// The value of the sample whose name and labels contain every one of `parts`.
    static func sample(_ text: String, _ parts: String...) -> Double? {
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard parts.allSatisfy({ line.contains($0) }), let value = line.split(separator: " ").last else { continue }
            return Double(value)
        }
        return nil
    }

    @Test func requestsFunctionsHooksStorageAndThePoolAreCounted() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.cloudCode.write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory) { api in
            for _ in 0..<3 { #expect(try await api.post("/1.1/functions/hello", [:]).status == .ok) }
            expectError(try await api.post("/1.1/functions/fails", [:]), code: 400)
            #expect(try await api.post("/1.1/classes/Note", ["text": "a"]).status == .created)
            _ = try await api.post("/1.1/functions/hello", headers: Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Prod", "0")]), [:])

            expectError(try await api.get("/metrics"), code: 401, status: .unauthorized)
            let scrape = try await api.get("/metrics", headers: Headers.master)
            #expect(scrape.status == .ok && scrape.header("Content-Type")?.hasPrefix("text/plain") == true)
            let text = scrape.text
            #expect(
                Self.sample(
                    text, "functionhost_http_request_duration_seconds_count", #"route="/1.1/functions/{name}""#,
                    #"status="200""#, #"environment="production""#) == 3, "\(text)")
            #expect(
                Self.sample(
                    text, "functionhost_http_request_duration_seconds_count", #"route="/1.1/functions/{name}""#,
                    #"environment="staging""#) == 1)
            #expect(
                Self.sample(text, "functionhost_http_request_duration_seconds_count", #"route="/metrics""#, #"status="401""#) == 1)
            #expect(
                Self.sample(
                    text, "functionhost_function_duration_seconds_count", #"function="hello""#, #"environment="production""#,
                    #"outcome="ok""#) == 3)
            #expect(Self.sample(text, "functionhost_function_duration_seconds_count", #"function="fails""#, #"outcome="error""#) == 1)
            #expect(
                Self.sample(text, "functionhost_hook_duration_seconds_count", #"hook="beforeSave""#, #"class="Note""#, #"outcome="ok""#) == 1)
            #expect((Self.sample(text, "functionhost_storage_duration_seconds_count", #"operation="create""#) ?? 0) >= 1)
            #expect(Self.sample(text, "functionhost_sandbox_workers", #"environment="production""#).map { $0 >= 1 } == true)
            #expect(Self.sample(text, "functionhost_sandbox_active_calls", #"environment="production""#) == 0)
            // Latency histograms have buckets under a millisecond: most calls here are faster.
            #expect(text.contains(#"le="0.0001""#))
        }
    }

    @Test func theAdminPortServesMetricsWithoutKeys() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let adminPort = Ports.free()
        try await TestServer.run(dataDirectory: directory, configure: { $0.adminPort = adminPort }) { api in
            _ = try await api.get("/1.1/date")
            // The admin port starts beside the main one: the shared client retries a refused
            // connection until it listens.
            let response = try await HTTPClient.shared.execute(
                HTTPClientRequest(url: "http://127.0.0.1:\(adminPort)/metrics"), timeout: .seconds(30))
            #expect(response.status == .ok)
            let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
            #expect(Self.sample(text, "functionhost_http_request_duration_seconds_count", #"route="/1.1/date""#) == 1, "\(text)")
        }
    }

    @Test func aRequestLooksItsSeriesUpRatherThanMakingOne() {
        let metrics = HostMetrics()
        for _ in 0..<100 {
            metrics.recordRequest(route: "/1.1/functions/{name}", method: "POST", status: 200, environment: "production", duration: .microseconds(50))
        }
        #expect(metrics.requestSeriesCount == 1)
        for _ in 0..<3 {
            metrics.recordRequest(route: "/1.1/functions/{name}", method: "POST", status: 500, environment: "production", duration: .microseconds(50))
        }
        #expect(metrics.requestSeriesCount == 2)
        let text = String(decoding: metrics.render(gauges: []), as: UTF8.self)
        #expect(Self.sample(text, "functionhost_http_request_duration_seconds_count", #"status="200""#) == 100)
        #expect(Self.sample(text, "functionhost_http_server_errors_total", #"status="500""#) == 3)
    }
}
