import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `DataClient.search` in Swift cloud functions, called over HTTP: what it finds and pages,
/// and that it searches as the function's caller (the master key only when the request
/// carried it or the code asks with `asMaster`), as Swift finds do.
@Suite struct SwiftSearchTests {
    /// A function searching Post for `q` as its caller (`master`: with `asMaster`), following
    /// the scroll to the end: `{ids, hits, pages}`.
    static var registry: FunctionRegistry {
        var registry = FunctionRegistry()
        registry.define("search") { request -> JSONValue in
            let data = request.params["master"] == true ? request.data.asMaster : request.data
            var search = SearchRequest(
                className: "Post", query: request.params["q"]?.stringValue ?? "",
                limit: Int(request.params["limit"]?.intValue ?? 100), highlights: ["title"])
            var ids: [JSONValue] = []
            var pages = 0
            var hits = 0
            repeat {
                let answer = try await data.search(search)
                ids += answer.results.map { .string($0.object.objectId) }
                hits = answer.hits
                pages += 1
                search.scrollID = answer.scrollID
            } while search.scrollID != nil && pages < 20
            return ["ids": .array(ids), "hits": .int(Int64(hits)), "pages": .int(Int64(pages))]
        }
        registry.define("ordered") { request -> JSONValue in
            let answer = try await request.data.search(
                "Post", query: "咖啡 OR coffee", order: [SortKey(key: "score", descending: true)], limit: 3)
            return .array(answer.results.map { $0.object.fields["score"] ?? .null })
        }
        return registry
    }

    static func session(_ token: String) -> HTTPFields {
        Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Session", token)])
    }

    static func ids(_ reply: Reply) -> Set<String> {
        Set(reply["result"]?["ids"]?.arrayValue?.compactMap(\.stringValue) ?? [])
    }

    @Test func aSwiftFunctionSearchesAndPagesAsItsCaller() async throws {
        try await TestServer.run(functions: Self.registry) { api in
            let annId = try await api.create("_User", ["username": "ann", "sessionToken": "ann-token"], headers: Headers.master)
            _ = try await api.create("_User", ["username": "bob", "sessionToken": "bob-token"], headers: Headers.master)
            var open: [String] = []
            for (i, title) in ["早上的咖啡", "coffee beans", "咖啡豆", "iced coffee", "一杯咖啡"].enumerated() {
                open.append(try await api.create("Post", ["title": .string(title), "score": .int(Int64(i))]))
            }
            let annsOwn = try await api.create(
                "Post", ["title": "ann's coffee", "score": 9, "ACL": .object([annId: ["read": true]])], headers: Headers.master)
            let on = try await api.put("/1.1/search/classes/Post", headers: Headers.master, ["fields": ["title"]])
            #expect(on.status == .ok, "\(on)")

            // Every public match, page by page (2 a page), counted in hits; ann's isn't the app's.
            let paged = try await api.post("/1.1/functions/search", ["q": "咖啡 OR coffee", "limit": 2])
            #expect(Self.ids(paged) == Set(open) && paged["result"]?["hits"] == 5, "\(paged)")
            #expect((paged["result"]?["pages"]?.intValue ?? 0) >= 3, "\(paged)")
            let ordered = try await api.post("/1.1/functions/ordered", [:])
            #expect(ordered["result"] == [4, 3, 2], "\(ordered)")

            // Attack: another user's function call doesn't see ann's object, nor count it.
            let bob = try await api.post("/1.1/functions/search", headers: Self.session("bob-token"), ["q": "ann"])
            #expect(Self.ids(bob).isEmpty && bob["result"]?["hits"] == 0, "\(bob)")
            let anonymous = try await api.post("/1.1/functions/search", ["q": "ann"])
            #expect(Self.ids(anonymous).isEmpty, "\(anonymous)")
            // Ann's call, the code asking for the master key, and a master-key request do.
            #expect(Self.ids(try await api.post("/1.1/functions/search", headers: Self.session("ann-token"), ["q": "ann"])) == [annsOwn])
            #expect(Self.ids(try await api.post("/1.1/functions/search", ["q": "ann", "master": true])) == [annsOwn])
            #expect(Self.ids(try await api.post("/1.1/functions/search", headers: Headers.master, ["q": "ann"])) == [annsOwn])
        }
    }
}
