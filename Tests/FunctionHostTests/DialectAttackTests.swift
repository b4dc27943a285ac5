import DataAPI
import Foundation
import HTTPTypes
import Hooks
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import FunctionHost

/// An attacker's second look at the dialects' edge: what it answers itself (before the router's
/// middleware) must be as rate-limited and as free of crashes as what LeanCloud's routes answer.
@Suite struct DialectAttackTests {
    // RateLimiter: "Refuses requests past their client's rate, before any work is done for them."
    // A dialect request the edge refuses itself (bad JSON, an unknown route, a batch past 50) was
    // answered without passing the limiter: a client past its rate kept getting 400s and 404s
    // (the edge read and parsed each body) where LeanCloud's path answers 429.
    @Test func edgeRefusalsAreRateLimited() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.rateLimits.perClient = 0.001 }) { api in
            let dialect = DialectCase.all[0]
            #expect(try await api.get(dialect.path("classes/Thing"), headers: dialect.client).status == .ok)
            let refusals = [
                try await api.send(.post, dialect.path("classes/Thing"), headers: dialect.client, body: "not json"),
                try await api.send(.post, dialect.path("classes/Thing"), headers: Headers.none, body: "not json"),
                try await api.post(dialect.path("nowhere"), headers: dialect.client, [:]),
                try await api.post(dialect.path("batch"), headers: dialect.client, ["requests": .array(Array(repeating: [:], count: 51))]),
            ]
            for reply in refusals { expectDialectError(reply, code: 429, status: .tooManyRequests) }
        }
    }

    // Without any rate limit the edge's own refusals keep their codes, and an unauthenticated
    // request is refused as unauthenticated before its body is judged (as on LeanCloud's path).
    @Test func edgeRefusalsAnswerAuthenticationFirst() async throws {
        try await TestServer.run { api in
            let dialect = DialectCase.all[0]
            expectDialectError(
                try await api.send(.post, dialect.path("classes/Thing"), headers: dialect.client, body: "not json"), code: 107, status: .badRequest)
            expectDialectError(try await api.post(dialect.path("nowhere"), headers: dialect.client, [:]), code: 404, status: .notFound)
            expectDialectError(
                try await api.send(.post, dialect.path("classes/Thing"), headers: Headers.none, body: "not json"), code: 90102, status: .unauthorized)
            expectDialectError(try await api.post(dialect.path("nowhere"), headers: dialect.headers(("APIKey", "wrong")), [:]), code: 90102)
            // Credentials of two dialects stay refused, whichever of them is right.
            var mixed = dialect.client
            mixed[HTTPField.Name("X-LC-Key")!] = "master,master"
            mixed[HTTPField.Name("X-LC-Id")!] = "app"
            expectDialectError(try await api.get(dialect.path("classes/_User"), headers: mixed), code: 90102, status: .unauthorized)
        }
    }

    // Bodies that aren't UTF-8 are malformed JSON (107), never a 500 or a stored object.
    @Test func nonUTF8BodiesAreMalformed() async throws {
        try await TestServer.run { api in
            let dialect = DialectCase.all[0]
            var headers = dialect.client
            headers[.contentType] = "application/json"
            for bytes: [UInt8] in [[0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D], [0xC3, 0x28], [0x7B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x3A, 0x31, 0x7D]] {
                let reply = try await api.client.execute(
                    uri: dialect.path("classes/Thing"), method: .post, headers: headers, body: ByteBuffer(bytes: bytes)
                ) { Reply($0) }
                expectDialectError(reply, code: 107, status: .badRequest)
            }
            #expect(try await api.count("Thing") == nil)
        }
    }

    // `POST /classes/{C}/delete` naming one id twice deletes it once and answers what it did,
    // not a 404 for the second after the first deleted it.
    @Test func repeatedIdsDeleteOnce() async throws {
        try await TestServer.run { api in
            let dialect = DialectCase.all[0]
            let id = try await api.create("Thing", ["n": 1], headers: Headers.master)
            let reply = try await api.post(dialect.path("classes/Thing/delete"), headers: dialect.master, ["objectIds": [.string(id), .string(id)]])
            #expect(reply.status == .ok && reply.json == ["number": 1], "\(reply)")
        }
    }

    // An update's answer carries incremented values (`new=true` underneath): on an object the
    // caller may write but not read, it carries none of them, as LeanCloud's `?new=true` doesn't.
    @Test func incrementsOfUnreadableObjectsStayHidden() async throws {
        try await TestServer.run { api in
            let dialect = DialectCase.all[0]
            let id = try await api.create("Counter", ["n": 41, "secret": "s", "ACL": ["*": ["write": true]]], headers: Headers.master)
            for path in ["classes/Counter/\(id)", "classes/Counter/\(id)?new=true"] {
                let reply = try await api.put(dialect.path(path), headers: dialect.client, ["n": op("Increment", ["amount": 1])])
                #expect(reply.status == .ok && reply["number"] == 1, "\(reply)")
                #expect(reply["n"] == nil && reply["secret"] == nil, "\(reply)")
            }
            let batch = try await api.post(
                dialect.path("batch"), headers: dialect.client,
                ["requests": [["method": "PUT", "path": .string("classes/Counter/\(id)?new=true"), "body": ["n": op("Increment", ["amount": 1])]]]])
            #expect(batch.json?.arrayValue?.first?["n"] == nil && batch.json?.arrayValue?.first?["secret"] == nil, "\(batch)")
            #expect(try await api.fetch("Counter", id, headers: Headers.master)["n"] == 44)
        }
    }
}
