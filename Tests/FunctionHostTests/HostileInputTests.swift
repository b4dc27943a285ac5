import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Input meant to hurt: regular expressions that backtrack without end, nesting past any use,
/// bodies of the wrong kind. Each gets a 4xx (or a correct answer) and the host keeps serving.
@Suite struct HostileInputTests {
    /// Patterns with nested repetition, against a long text that almost matches.
    static let backtracking = ["(a+)+$", "(a|aa)*c", "(a*)*b$", "^(a|a?)+$"]

    @Test func aBacktrackingRegexIsStoppedAndTheHostKeepsServing() async throws {
        try await TestServer.run { api in
            let long = String(repeating: "a", count: 30_000) + "!"
            _ = try await api.create("Text", ["s": .string(long), "tags": [.string(long)]])
            _ = try await api.create("Text", ["s": "short"])
            for pattern in Self.backtracking {
                for key in ["s", "tags"] {
                    let reply = try await api.find("Text", ["where": JSONValue.object([key: ["$regex": .string(pattern)]]).jsonString])
                    Self.expectCutOff(reply, pattern)
                }
                let cql = try await api.get(
                    "/1.1/cloudQuery" + queryString(["cql": "select * from Text where s regexp ?", "pvalues": JSONValue.array([.string(pattern)]).jsonString]))
                Self.expectCutOff(cql, pattern)
                // A conditional write with such a `where` is refused the same way, and changes nothing.
                let id = try await api.create("Text", ["s": .string(long)])
                let put = try await api.put(
                    "/1.1/classes/Text/\(id)?" + "where=" + encode(JSONValue.object(["s": ["$regex": .string(pattern)]]).jsonString),
                    ["s": "changed"])
                #expect((400..<500).contains(put.status.code), "\(pattern): \(put)")
                #expect(try await api.fetch("Text", id)["s"]?.stringValue == long)
            }
            // A plain pattern still works.
            let plain = try await api.find("Text", ["where": #"{"s":{"$regex":"^sho"}}"#])
            #expect(plain.results.count == 1, "\(plain)")
            #expect(try await api.get("/__engine/1/ping").status == .ok)
        }
    }

    /// The answer to a backtracking pattern. SQLite's ICU expressions backtrack, and the query
    /// is stopped with 102 (not a 200 with results cut short, not a 500). PostgreSQL's engine
    /// doesn't backtrack: there the query is answered, and nothing matches.
    static func expectCutOff(_ reply: Reply, _ pattern: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if TestDatabase.isPostgres {
            #expect(reply.status == .ok && reply.results.isEmpty, "\(pattern): \(reply)", sourceLocation: sourceLocation)
        } else {
            expectError(reply, code: 102, status: .badRequest, sourceLocation: sourceLocation)
        }
    }

    @Test func deepNestingAndBinaryBodiesAreMalformedJSON() async throws {
        var functions = FunctionRegistry()
        functions.define("echo") { request in request.params }
        try await TestServer.run(functions: functions) { api in
            let deep = "{\"x\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
            expectError(try await api.send(.post, "/1.1/classes/Deep", body: deep), code: 107, status: .badRequest)
            let deepWhere = String(repeating: "{\"$or\":[", count: 300) + "{}" + String(repeating: "]}", count: 300)
            let query = try await api.find("Deep", ["where": deepWhere])
            #expect((400..<500).contains(query.status.code), "\(query)")
            let deepParams = "{\"p\":" + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}"
            expectError(try await api.send(.post, "/1.1/functions/echo", body: deepParams), code: 107)
            let zeros = String(repeating: "\u{0}", count: 1000)
            expectError(try await api.send(.post, "/1.1/classes/Deep", body: zeros), code: 107)
            expectError(try await api.send(.post, "/1.1/batch", body: #"{"requests": 7}"#), code: 107)
            #expect(try await api.get("/__engine/1/ping").status == .ok)
        }
    }
}
