import Foundation
import FunctionHost
import HTTPTypes
import JSON
import NIOHTTP1
import Testing
import TestSupport

/// An app's own web pages, served by its engine on its host name or under a path prefix, as
/// `<app>.leanapp.cn` served them; the API stays the host's on the same name.
@Suite struct EngineWebTests {
    static func withWeb<Value: Sendable>(_ body: @Sendable (API) async throws -> Value) async throws -> Value {
        try await EngineAppTests.withEngine(
            staging: true, configure: { $0.engineWeb = EngineWebRoutes(host: "App.Example.com", prefixes: [.production: "/app"]) }, body)
    }

    @Test func theAppsHostNameReachesItsEngineAndTheAPIStaysTheHosts() async throws {
        try await Self.withWeb { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            _ = try await EngineAppFixture.waitUntilServing(
                api, function: "hello", headers: Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Prod", "0")]))
            // What a client claims about its address is replaced by what the host saw.
            let page = try await EdgeFixture.send(
                port: api.port, .POST, "/some/page?x=1", host: "app.example.com:8080",
                headers: [
                    ("X-Forwarded-For", "6.6.6.6"), ("X-Real-IP", "6.6.6.6"), ("Cookie", "a=b"),
                    // A header the client names in Connection is for this hop only.
                    ("Connection", "keep-alive, X-Secret-Hop"), ("X-Secret-Hop", "1"),
                ], body: "{\"k\":1}")
            #expect(page.status == .ok, "\(page)")
            #expect(
                page.json == [
                    "env": "production", "method": "POST", "path": "/some/page", "query": "x=1", "host": "app.example.com:8080",
                    "forwardedFor": "127.0.0.1", "realIP": "127.0.0.1", "cookie": "a=b", "secretHop": .null, "bodyBytes": 7,
                ], "\(page)")
            #expect(page.header("Set-Cookie") == "session=abc; Path=/")
            // stg- is staging's engine, as LeanCloud bound stg- domains.
            let staging = try await EdgeFixture.send(port: api.port, .GET, "/", host: "stg-app.example.com")
            #expect(staging.text == "staging web page", "\(staging)")
            // The API on the app's name is still the API.
            let date = try await EdgeFixture.send(port: api.port, .GET, "/1.1/date", host: "app.example.com")
            #expect(date["__type"] == "Date", "\(date)")
            // The engine's own protocol is the host's to call, however the path is written.
            for path in ["/%31.1/functions/hello", "/1.1%2Ffunctions/hello", "/%5F%5Fengine%2F1/ping"] {
                let encoded = try await EdgeFixture.send(port: api.port, .POST, path, host: "app.example.com", body: "{}")
                #expect(encoded["result"] == nil && encoded.status != .ok && encoded["pong"] == nil, "\(path): \(encoded)")
            }
            // Another name isn't the app's: the host's own root answers.
            let other = try await EdgeFixture.send(port: api.port, .GET, "/", host: "other.example.com")
            #expect(other["status"] == "ok", "\(other)")
        }
    }

    @Test func aPrefixReachesTheEngineWithoutItAndBodiesAreBounded() async throws {
        try await Self.withWeb { api in
            _ = try await EngineAppFixture.waitUntilServing(api, function: "hello")
            let page = try await api.get("/app/inner/page?q=2", headers: Headers.none)
            #expect(page["path"] == "/inner/page" && page["query"] == "q=2", "\(page)")
            #expect(try await api.get("/app", headers: Headers.none)["path"] == "/")
            // Under the prefix, the engine's own protocol (functions, hooks, metadatas) is not
            // reachable: a client calls the host's functions, under its limits and logs.
            // Encoded slashes too: the engine decodes `1.1%2Ffunctions` to `1.1/functions`.
            for path in [
                "/app/1.1/functions/hello", "/app/1/functions/hello", "/app/__engine/1/ping", "/app/%31.1/functions/hello",
                "/app/1.1%2Ffunctions/hello", "/app/1.1%2Fcall/hello", "/app/%5F%5Fengine%2F1/ping",
            ] {
                let reply = try await api.post(path, [:])
                #expect(reply.status == .notFound || reply.status == .unauthorized, "\(path): \(reply)")
            }
            // A prefix's look-alike is not under it.
            #expect(try await api.get("/application", headers: Headers.none).status == .unauthorized)
            // Past the host's body limit: refused before the engine reads it.
            let huge = String(repeating: "x", count: 21 * 1024 * 1024)
            let refused = try await api.send(.post, "/app/upload", headers: Headers.none, body: huge)
            #expect(refused.status == .contentTooLarge, "\(refused.status)")
            // An engine that is down: 503 at once (or its page, once it is back).
            _ = try await api.post("/1.1/functions/exitNow", [:])
            let down = try await api.get("/app/x", headers: Headers.none)
            #expect(down.status == .serviceUnavailable || down["path"] == "/x", "\(down)")
        }
    }
}
