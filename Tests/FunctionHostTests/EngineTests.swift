import DataAPI
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import FunctionHost

/// The health check, the server clock, routing misses and CORS.
@Suite struct EngineTests {
    @Test(arguments: ["/__engine/1/ping", "/__engine/1.1/ping"])
    func pingAnswersRuntimeAndVersionWithoutCredentials(path: String) async throws {
        try await TestServer.run { api in
            let reply = try await api.get(path, headers: Headers.none)
            #expect(reply.status == .ok)
            #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
            let body = try #require(reply.json?.objectValue, "\(reply)")
            #expect(Set(body.keys) == ["runtime", "version"])
            #expect(body["runtime"]?.stringValue?.isEmpty == false)
            #expect(body["version"]?.stringValue?.isEmpty == false)
        }
    }

    @Test func pingIgnoresWrongCredentials() async throws {
        try await TestServer.run { api in
            let reply = try await api.get(
                "/__engine/1/ping", headers: Headers.make([("X-LC-Id", "nope"), ("X-LC-Key", "nope")]))
            #expect(reply.status == .ok)
            #expect(reply["runtime"] != nil)
        }
    }

    @Test(arguments: ["/1.1/date", "/1/date"])
    func dateIsTheServerClockAsALeanCloudDate(path: String) async throws {
        try await TestServer.run { api in
            let before = ObjectID.currentMilliseconds()
            let reply = try await api.get(path, headers: Headers.none)
            let after = ObjectID.currentMilliseconds()
            #expect(reply.status == .ok)
            let body = try #require(reply.json?.objectValue, "\(reply)")
            #expect(Set(body.keys) == ["__type", "iso"])
            #expect(body["__type"] == "Date")
            let iso = try #require(body["iso"]?.stringValue)
            #expect(isCanonicalISODate(iso), "\(iso)")
            let milliseconds = try #require(ISODate.milliseconds(from: iso))
            #expect(milliseconds >= before && milliseconds <= after, "\(iso) not within the request")
        }
    }

    @Test func unknownRouteIsA404InLeanCloudShape() async throws {
        try await TestServer.run { api in
            let reply = try await api.get("/1.1/nothing/here")
            expectError(reply, code: 404, status: .notFound)
        }
    }

    @Test func unknownRouteWithoutCredentialsIsUnauthorized() async throws {
        try await TestServer.run { api in
            let reply = try await api.get("/1.1/nothing/here", headers: Headers.none)
            #expect(reply.status == .unauthorized)
            #expect(reply.text == #"{"code":401,"error":"Unauthorized."}"#)
        }
    }

    @Test func unsupportedMethodOnAnObjectIsAClientError() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Todo", ["title": "a"])
            let reply = try await api.send(.patch, "/1.1/classes/Todo/\(id)", body: #"{"title":"b"}"#)
            #expect((400..<500).contains(reply.status.code), "\(reply)")
            #expect(reply["code"]?.intValue != nil, "\(reply)")
            #expect(try await api.fetch("Todo", id)["title"] == "a")
        }
    }

    // MARK: CORS

    @Test(arguments: ["/1.1/classes/Todo", "/1/classes/Todo/abc", "/1.1/batch", "/1.1/functions/hello", "/1.1/date"])
    func preflightIsAnsweredWithoutCredentials(path: String) async throws {
        try await TestServer.run { api in
            let reply = try await api.send(
                .options, path,
                headers: Headers.make([
                    ("Origin", "https://example.com"), ("Access-Control-Request-Method", "PUT"),
                    ("Access-Control-Request-Headers", "x-lc-id, x-lc-key, content-type"),
                ]))
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply.header("Access-Control-Allow-Origin") == "https://example.com")
            let methods = try #require(reply.header("Access-Control-Allow-Methods"))
            for method in ["GET", "POST", "PUT", "DELETE"] { #expect(methods.contains(method), "\(methods)") }
            let allowed = try #require(reply.header("Access-Control-Allow-Headers"))
            let names = Set(allowed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() })
            for header in [
                "X-LC-Hook-Key", "X-LC-Session", "X-LC-Prod", "X-LC-Id", "X-LC-Key", "X-LC-Sign", "Content-Type",
                "X-AVOSCloud-Application-Id", "X-Parse-Application-Id",
            ] {
                #expect(names.contains(header.lowercased()), "\(header) missing from \(allowed)")
            }
        }
    }

    @Test func ordinaryAnswersAllowTheCallersOrigin() async throws {
        try await TestServer.run { api in
            var headers = Headers.client
            headers[HTTPField.Name("Origin")!] = "https://app.example"
            let created = try await api.post("/1.1/classes/Todo", headers: headers, ["title": "a"])
            #expect(created.status == .created)
            #expect(created.header("Access-Control-Allow-Origin") == "https://app.example")

            // Errors too, so browsers can read them.
            let denied = try await api.get(
                "/1.1/classes/Todo", headers: Headers.make([("Origin", "https://app.example")]))
            #expect(denied.status == .unauthorized)
            #expect(denied.header("Access-Control-Allow-Origin") == "https://app.example")

            let anyOrigin = try await api.get("/__engine/1/ping", headers: Headers.none)
            #expect(anyOrigin.header("Access-Control-Allow-Origin") == "*")
        }
    }
}
