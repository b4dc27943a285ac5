import DataAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `POST /batch`: one answer per request, in order, each a success or an error.
@Suite struct BatchTests {
    static func request(_ method: String, _ path: String, _ body: JSONValue? = nil) -> JSONValue {
        var entry: [String: JSONValue] = ["method": .string(method), "path": .string(path)]
        if let body { entry["body"] = body }
        return .object(entry)
    }

    /// Checks that an entry is `{"error": {"code": code, "error": "..."}}`.
    static func expectEntryError(_ entry: JSONValue?, code: Int64, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(fieldNames(entry) == ["error"], "\(String(describing: entry))", sourceLocation: sourceLocation)
        #expect(entry?["error"]?["code"] == .int(code), "\(String(describing: entry))", sourceLocation: sourceLocation)
        #expect(entry?["error"]?["error"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
    }

    @Test(arguments: ["1.1", "1"])
    func mixedRequestsAreAnsweredInOrder(prefix: String) async throws {
        try await TestServer.run { api in
            let keep = try await api.create("Todo", ["title": "keep", "n": 1])
            let drop = try await api.create("Todo", ["title": "drop"])
            let reply = try await api.post(
                "/\(prefix)/batch",
                [
                    "requests": [
                        Self.request("POST", "/\(prefix)/classes/Todo", ["title": "new"]),
                        Self.request("POST", "/\(prefix)/classes/Todo", ["objectId": "forbidden"]),
                        Self.request("PUT", "/\(prefix)/classes/Todo/\(keep)", ["n": op("Increment", ["amount": 2])]),
                        Self.request("DELETE", "/\(prefix)/classes/Todo/\(drop)"),
                        Self.request("GET", "/\(prefix)/classes/Todo/\(keep)"),
                        Self.request("PUT", "/\(prefix)/classes/Todo/000000000000000000000000", ["title": "x"]),
                        Self.request("POST", "/\(prefix)/classes/Todo", ["n": "not a number"]),
                        Self.request("GET", "/\(prefix)/classes/Todo/\(drop)"),
                        Self.request("POST", "/\(prefix)/classes/Todo", ["title": "after errors"]),
                    ]
                ])
            #expect(reply.status == .ok, "\(reply)")
            let entries = try #require(reply.json?.arrayValue, "\(reply)")
            try #require(entries.count == 9)

            let created = try #require(entries[0]["success"], "\(entries[0])")
            #expect(fieldNames(created) == ["objectId", "createdAt"])
            Self.expectEntryError(entries[1], code: 105)
            #expect(isCanonicalISODate(entries[2]["success"]?["updatedAt"]?.stringValue), "\(entries[2])")
            #expect(entries[3] == ["success": [:]])
            #expect(entries[4]["success"]?["n"] == 3, "the GET sees the PUT before it: \(entries[4])")
            #expect(entries[4]["success"]?["title"] == "keep")
            Self.expectEntryError(entries[5], code: 101)
            Self.expectEntryError(entries[6], code: 111)
            #expect(entries[7] == ["success": .null], "a deleted object is null, as LeanCloud answers it: \(entries[7])")
            let last = try #require(entries[8]["success"]?["objectId"]?.stringValue, "\(entries[8])")

            // The effects are there, and the failures left no trace.
            let titles = try await api.results("Todo", ["order": "createdAt"]).compactMap { $0["title"]?.stringValue }
            #expect(titles == ["keep", "new", "after errors"])
            #expect(try await api.fetch("Todo", keep)["n"] == 3)
            #expect(try await api.fetch("Todo", last)["title"] == "after errors")
        }
    }

    @Test func queriesAndParametersInsideABatch() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Todo", ["title": "a", "n": 1])
            _ = try await api.create("Todo", ["title": "b", "n": 2])
            let whereText = encode(#"{"n":{"$gt":1}}"#)
            let reply = try await api.post(
                "/1.1/batch",
                [
                    "requests": [
                        Self.request("GET", "/1.1/classes/Todo?where=\(whereText)&keys=title"),
                        ["method": "GET", "path": "/1.1/classes/Todo", "params": ["where": ["n": 1], "count": 1, "limit": 0]],
                        Self.request("PUT", "/1.1/classes/Todo/\(id)?fetchWhenSave=true", ["n": op("Increment")]),
                        Self.request("POST", "/1.1/classes/Todo?fetchWhenSave=true", ["title": "c"]),
                        Self.request("PUT", "/1.1/classes/Todo/\(id)?where=\(encode(#"{"n":100}"#))", ["title": "x"]),
                        Self.request("GET", "/1.1/classes/Todo/\(id)?keys=n"),
                    ]
                ])
            let entries = try #require(reply.json?.arrayValue, "\(reply)")
            try #require(entries.count == 6)
            let found = try #require(entries[0]["success"]?["results"]?.arrayValue, "\(entries[0])")
            #expect(found.map { $0["title"] } == ["b"])
            #expect(found.first?["n"] == nil)
            #expect(entries[1]["success"] == ["results": [], "count": 1], "\(entries[1])")
            #expect(entries[2]["success"]?["n"] == 2, "\(entries[2])")
            #expect(entries[3]["success"]?["title"] == "c", "\(entries[3])")
            #expect(entries[3]["success"]?["ACL"] != nil)
            Self.expectEntryError(entries[4], code: 305)
            #expect(fieldNames(entries[5]["success"]) == ["n", "objectId", "createdAt", "updatedAt"], "\(entries[5])")
            #expect(try await api.fetch("Todo", id)["title"] == "a")
        }
    }

    @Test func malformedEntriesFailAlone() async throws {
        try await TestServer.run { api in
            let reply = try await api.post(
                "/1.1/batch",
                [
                    "requests": [
                        ["path": "/1.1/classes/Todo", "body": ["title": "no method"]],
                        ["method": "POST", "body": ["title": "no path"]],
                        Self.request("POST", "/1.1/users", ["username": "u"]),
                        Self.request("PATCH", "/1.1/classes/Todo/abc", ["title": "x"]),
                        Self.request("POST", "/1.1/classes/1abc", ["title": "x"]),
                        Self.request("POST", "/1.1/classes/_Role", ["name": "u"]),
                        Self.request("GET", "/1.1/classes/Ghost/abc"),
                        Self.request("POST", "/1.1/classes/Todo", ["title": "ok"]),
                    ]
                ])
            #expect(reply.status == .ok, "\(reply)")
            let entries = try #require(reply.json?.arrayValue, "\(reply)")
            try #require(entries.count == 8)
            Self.expectEntryError(entries[0], code: 107)
            Self.expectEntryError(entries[1], code: 107)
            #expect(entries[2]["error"]?["code"]?.intValue != nil, "\(entries[2])")
            #expect(entries[3]["error"]?["code"]?.intValue != nil, "\(entries[3])")
            Self.expectEntryError(entries[4], code: 103)
            Self.expectEntryError(entries[5], code: 119)
            Self.expectEntryError(entries[6], code: 101)
            #expect(entries[7]["success"]?["objectId"] != nil, "\(entries[7])")
            #expect(try await api.results("Todo").map { $0["title"] } == ["ok"])
            #expect(try await api.count("_Role") == 0)
        }
    }

    @Test func theMasterKeyAppliesToEveryEntry() async throws {
        try await TestServer.run { api in
            let reply = try await api.post(
                "/1.1/batch", headers: Headers.master,
                ["requests": [Self.request("POST", "/1.1/classes/_Role", ["name": "root"])]])
            #expect(reply.json?.arrayValue?.first?["success"]?["objectId"] != nil, "\(reply)")
            #expect(try await api.count("_Role") == 1)
        }
    }

    @Test func anEmptyBatchAnswersAnEmptyArray() async throws {
        try await TestServer.run { api in
            let reply = try await api.post("/1.1/batch", ["requests": []])
            #expect(reply.status == .ok)
            #expect(reply.text == "[]")
        }
    }

    @Test(arguments: [#"not json"#, #"{"requests":"#, #"{}"#, #"{"requests":5}"#, #"{"requests":{}}"#, #"[]"#, ""])
    func malformedBatchBodyIs4xx(body: String) async throws {
        try await TestServer.run { api in
            let reply = try await api.send(.post, "/1.1/batch", body: body)
            expectError(reply, code: 107, status: .badRequest)
        }
    }

    @Test func batchNeedsCredentials() async throws {
        try await TestServer.run { api in
            let reply = try await api.post(
                "/1.1/batch", headers: Headers.none,
                ["requests": [Self.request("POST", "/1.1/classes/Todo", ["title": "x"])]])
            #expect(reply.status == .unauthorized)
            #expect(reply.text == #"{"code":401,"error":"Unauthorized."}"#)
            #expect(try await api.count("Todo") == nil)
        }
    }

    @Test func aBatchOf500IsAccepted() async throws {
        try await TestServer.run { api in
            try await bulkCreate(api, "Row", count: 500)
            #expect(try await api.count("Row") == 500)
        }
    }

    @Test func aBatchOverTheLimitIsAClientError() async throws {
        try await TestServer.run { api in
            let requests = (0..<501).map { _ in Self.request("POST", "/1.1/classes/Row", ["x": 1]) }
            let reply = try await api.post("/1.1/batch", ["requests": .array(requests)])
            #expect(reply["code"]?.intValue != nil, "\(reply)")
            #expect(try await api.count("Row") == nil, "nothing of a refused batch is written")
            #expect((400..<500).contains(reply.status.code), "\(reply)")
        }
    }
}
