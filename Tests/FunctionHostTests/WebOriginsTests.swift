import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// LeanCloud's Web security domains: with a list of origins, a browser page elsewhere gets no
/// CORS grant and its app-key requests are refused with LeanCloud's 403; listed pages, requests
/// without an `Origin` and the master key work as before. Each request is the browser's own: a
/// preflight with `Access-Control-Request-*`, then the SDK's call with `Origin`.
@Suite struct WebOriginsTests {
    static let listed = "https://blog.example.com, http://localhost:4000, https://*.example.org"

    /// Runs a server allowing `listed` only.
    static func run(_ body: @Sendable (API) async throws -> Void) async throws {
        let origins = try #require(WebOrigins(list: listed))
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.webOrigins = origins }, body)
    }

    /// The preflight a browser sends before the JS SDK's `POST /1.1/classes/Comment`.
    static func preflight(_ api: API, from origin: String) async throws -> Reply {
        try await api.send(
            .options, "/1.1/classes/Comment",
            headers: Headers.make([
                ("Origin", origin), ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "content-type,x-lc-id,x-lc-sign,x-lc-ua"),
            ]))
    }

    /// The SDK's call itself, from a page of `origin` (nil: no page, a server SDK).
    static func headers(_ base: HTTPFields = Headers.client, from origin: String?) -> HTTPFields {
        var headers = base
        if let origin { headers[.origin] = origin }
        return headers
    }

    @Test func listedPagesAreGrantedAsBefore() async throws {
        try await Self.run { api in
            for origin in ["https://blog.example.com", "http://localhost:4000", "https://comments.example.org", "HTTPS://Blog.Example.com:443"] {
                let preflight = try await Self.preflight(api, from: origin)
                #expect(preflight.status == .ok && preflight.header("Access-Control-Allow-Origin") == origin, "\(origin): \(preflight)")
                #expect(preflight.header("Access-Control-Allow-Headers")?.contains("X-LC-Sign") == true)
                let created = try await api.post("/1.1/classes/Comment", headers: Self.headers(from: origin), ["text": "hi"])
                #expect(created.status == .created, "\(origin): \(created)")
                #expect(created.header("Access-Control-Allow-Origin") == origin && created.header("Vary") == "Origin")
            }
        }
    }

    @Test func attackAPageElsewhereGetsNoGrantAndIsRefused() async throws {
        try await Self.run { api in
            let outside = [
                "https://evil.example", "http://blog.example.com", "https://blog.example.com:8443", "https://example.org",
                "https://blog.example.com.evil.example", "https://evilblog.example.com", "null", "https://*.example.org",
            ]
            for origin in outside {
                let preflight = try await Self.preflight(api, from: origin)
                #expect(preflight.status == .forbidden, "\(origin): \(preflight)")
                #expect(preflight.header("Access-Control-Allow-Origin") == nil && preflight.header("Access-Control-Allow-Headers") == nil)
                // Sent anyway (a script outside a browser, or a simple request): refused, nothing written.
                let created = try await api.post("/1.1/classes/Comment", headers: Self.headers(from: origin), ["text": "spam"])
                expectError(created, code: 403, status: .forbidden)
                #expect(created["error"] == "Access denied by api domain white list, Please check your security domain.")
                #expect(created.header("Access-Control-Allow-Origin") == nil, "\(created)")
                expectError(try await api.get("/1.1/classes/Comment", headers: Self.headers(from: origin)), code: 403)
                // The keys inside a text/plain body (the SDKs' way to skip a preflight) too.
                let plain = Headers.make([("Origin", origin), ("Content-Type", "text/plain")])
                let hidden = try await api.send(
                    .post, "/1.1/classes/Comment", headers: plain, body: #"{"_ApplicationId":"app","_ApplicationKey":"key","text":"spam"}"#)
                expectError(hidden, code: 403)
            }
            #expect(try await api.find("Comment", headers: Headers.master).results.isEmpty)
        }
    }

    @Test func requestsWithoutAnOriginAndTheMasterKeyAreNotBound() async throws {
        try await Self.run { api in
            // A server SDK or a mobile app: no Origin.
            #expect(try await api.post("/1.1/classes/Comment", ["text": "server"]).status == .created)
            // The operator's own tools with the master key, from any page.
            let master = try await api.get("/1.1/classes/Comment", headers: Self.headers(Headers.master, from: "https://evil.example"))
            #expect(master.status == .ok && master.results.count == 1, "\(master)")
        }
    }

    @Test func byDefaultEveryOriginIsGranted() async throws {
        try await TestServer.run { api in
            let preflight = try await Self.preflight(api, from: "https://anywhere.example")
            #expect(preflight.status == .ok && preflight.header("Access-Control-Allow-Origin") == "https://anywhere.example")
            let created = try await api.post("/1.1/classes/Comment", headers: Self.headers(from: "https://anywhere.example"), ["text": "hi"])
            #expect(created.status == .created && created.header("Vary") == nil, "\(created)")
        }
    }

    @Test func aListThatNamesNoOriginIsRefusedAtStart() async throws {
        for list in ["example.com", "https://example.com/comments", "https://a.*.com", "https://user@example.com", "https://example.com:0", ","] {
            #expect(WebOrigins(list: list) == nil, "\(list)")
        }
        #expect(WebOrigins(list: " * ")?.allowsEveryOrigin == true)
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let run = try await CLI.functionhost(
            ["serve", "--data-dir", directory + "/data", "--functions", directory, "--web-origins", "blog.example.com"], port: 1)
        #expect(run.status != 0 && run.errors.contains("--web-origins takes origins"), "\(run)")
    }

    @Test func serveSaysWhichOriginsItGrants() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (process, text) = try await StartupBannerTests.serve([
            "--port", String(Ports.free()), "--data-dir", directory + "/data", "--functions", directory,
            "--web-origins", "https://Blog.example.com/,https://*.example.org",
        ])
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        #expect(
            text.contains("Web origins: https://blog.example.com, https://*.example.org (pages elsewhere are refused)"), "\(text)")
    }
}
