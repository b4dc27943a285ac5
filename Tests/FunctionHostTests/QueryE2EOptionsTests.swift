import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// `order`, `limit`, `skip`, `keys`, `include` and `count`, end to end over HTTP.
///
/// Sorting follows SQLite: a missing value sorts first ascending and last descending, booleans
/// sort as 0 and 1, strings by code point, ties in creation order.
@Suite struct QueryE2EOptionsTests {
    static let orders: [QE2ECase] = [
        .ordered("default order is creation order", nil, QE2EFixture.allItems),
        .ordered("order by unknown field keeps creation order", nil, QE2EFixture.allItems, ["order": "nosuch"]),
        .ordered("order name", nil, ["empty", "Bravo", "Délice", "alpha", "charlie", "omega", "zulu", "東京"], ["order": "name"]),
        .ordered("order -name", nil, ["東京", "zulu", "omega", "charlie", "alpha", "Délice", "Bravo", "empty"], ["order": "-name"]),
        .ordered(
            "order score (int and double, ties by creation)", nil,
            ["empty", "omega", "charlie", "東京", "Bravo", "alpha", "zulu", "Délice"], ["order": "score"]),
        .ordered(
            "order -score", nil, ["Délice", "alpha", "zulu", "Bravo", "東京", "charlie", "empty", "omega"], ["order": "-score"]),
        .ordered(
            "order score,-name", nil, ["omega", "empty", "charlie", "東京", "Bravo", "zulu", "alpha", "Délice"],
            ["order": "score,-name"]),
        .ordered(
            "order -score,-name", nil, ["Délice", "zulu", "alpha", "Bravo", "東京", "charlie", "omega", "empty"],
            ["order": "-score,-name"]),
        .ordered(
            "order with spaces", nil, ["omega", "empty", "charlie", "東京", "Bravo", "zulu", "alpha", "Délice"],
            ["order": "score, -name"]),
        .ordered(
            "order flag,name", nil, ["empty", "zulu", "Bravo", "Délice", "alpha", "charlie", "omega", "東京"],
            ["order": "flag,name"]),
        .ordered(
            "order -flag,-score", nil, ["alpha", "東京", "charlie", "omega", "Délice", "Bravo", "zulu", "empty"],
            ["order": "-flag,-score"]),
        .ordered("order date", nil, ["東京", "empty", "omega", "zulu", "Bravo", "alpha", "Délice", "charlie"], ["order": "when"]),
        .ordered("order -date", nil, ["charlie", "Délice", "alpha", "Bravo", "zulu", "東京", "empty", "omega"], ["order": "-when"]),
        .ordered("order nested o.x", nil, ["東京", "empty", "omega", "zulu", "Bravo", "charlie", "Délice", "alpha"], ["order": "o.x"]),
        .ordered("order nested -o.x", nil, ["alpha", "Délice", "charlie", "Bravo", "zulu", "東京", "empty", "omega"], ["order": "-o.x"]),
        .computed("order createdAt", nil, .timestampOrder(key: "createdAt", descending: false), ordered: true, ["order": "createdAt"]),
        .computed("order -createdAt", nil, .timestampOrder(key: "createdAt", descending: true), ordered: true, ["order": "-createdAt"]),
        .computed("order updatedAt", nil, .timestampOrder(key: "updatedAt", descending: false), ordered: true, ["order": "updatedAt"]),
        .computed("order -updatedAt", nil, .timestampOrder(key: "updatedAt", descending: true), ordered: true, ["order": "-updatedAt"]),
        // Windows.
        .ordered("limit", nil, ["empty", "Bravo", "Délice"], ["order": "name", "limit": "3"]),
        .ordered("skip and limit", nil, ["Délice", "alpha", "charlie"], ["order": "name", "skip": "2", "limit": "3"]),
        .ordered("skip to the last", nil, ["東京"], ["order": "name", "skip": "7"]),
        .ordered("skip everything", nil, [], ["order": "name", "skip": "8"]),
        .ordered("skip past the end", nil, [], ["order": "name", "skip": "100"]),
        .ordered("limit 0", nil, [], ["limit": "0"]),
        .ordered("limit 1000", nil, ["東京", "zulu", "omega", "charlie", "alpha", "Délice", "Bravo", "empty"], ["order": "-name", "limit": "1000"]),
        .ordered("limit 1 descending", nil, ["東京"], ["order": "-name", "limit": "1"]),
        .ordered("skip without order", nil, ["zulu", "empty", "omega"], ["skip": "5"]),
        .ordered("where, order and limit", #"{"flag":true}"#, ["alpha", "東京"], ["order": "-score", "limit": "2"]),
        .ordered(
            "where and two keys", #"{"score":{"$exists":true}}"#, ["zulu", "Délice", "Bravo", "東京", "charlie", "alpha"],
            ["order": "flag,-name"]),
        .ordered("order on another class", nil, ["p1", "p3", "p2"], ["order": "title"], className: "QPost"),
    ]

    @Test(arguments: orders) func orderAndWindow(_ testCase: QE2ECase) async throws { try await qe2eRun(testCase) }

    /// The fields of one object of a query answer, by label.
    private static func fields(_ reply: Reply, _ fixture: QE2EFixture) -> [String: Set<String>] {
        var out: [String: Set<String>] = [:]
        for object in reply.results { out[fixture.label(object)] = Set(object.objectValue?.keys.map { $0 } ?? []) }
        return out
    }

    private static let builtIns: Set<String> = ["objectId", "createdAt", "updatedAt"]

    @Test func keysSelectsFieldsAndKeepsBuiltIns() async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            let reply = try await qe2eFind(api, "QItem", ["keys": "name,score", "order": "createdAt"])
            #expect(reply.status == .ok, "\(reply)")
            let fields = Self.fields(reply, fixture)
            #expect(fields.count == 8, "\(reply)")
            #expect(fields["alpha"] == Self.builtIns.union(["name", "score"]))
            #expect(fields["omega"] == Self.builtIns.union(["name"]))
            #expect(fields["empty"] == Self.builtIns)
            let alpha = try #require(reply.results.first)
            #expect(alpha["name"] == "alpha")
            #expect(alpha["score"] == 10)
            #expect(alpha["objectId"]?.stringValue == fixture.ids["alpha"])
            #expect(alpha["createdAt"]?.stringValue == fixture.createdAt["alpha"])
        }
    }

    @Test func keysExclusionDropsOnlyThoseFields() async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            let whole = Self.fields(try await qe2eFind(api, "QItem", [:]), fixture)
            let alphaFields = try #require(whole["alpha"])
            #expect(alphaFields.isSuperset(of: ["name", "score", "text", "flag", "when", "tags", "nums", "post", "loc", "o"]))
            let reply = try await qe2eFind(api, "QItem", ["keys": "-text,-tags,-loc"])
            #expect(reply.status == .ok, "\(reply)")
            let fields = Self.fields(reply, fixture)
            #expect(fields.count == 8)
            for (label, expected) in whole {
                #expect(fields[label] == expected.subtracting(["text", "tags", "loc"]), "\(label)")
            }
            // A dotted selection keeps the top-level field it starts with.
            let dotted = try await qe2eFind(api, "QItem", ["keys": "o.x", "where": #"{"name":"alpha"}"#])
            #expect(Self.fields(dotted, fixture)["alpha"] == Self.builtIns.union(["o"]), "\(dotted)")
            #expect(dotted.results.first?["o"]?["x"] == 3, "\(dotted)")
        }
    }

    @Test func includeResolvesANestedPath() async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            let reply = try await qe2eFind(
                api, "QItem",
                ["where": #"{"name":{"$in":["alpha","zulu","東京","Bravo"]}}"#, "include": "post.author", "order": "createdAt"])
            #expect(reply.status == .ok, "\(reply)")
            #expect(fixture.labels(reply.results) == ["alpha", "Bravo", "東京", "zulu"])
            let byLabel = Dictionary(uniqueKeysWithValues: reply.results.map { (fixture.label($0), $0) })

            let alphaPost = try #require(byLabel["alpha"]?["post"], "\(reply)")
            #expect(alphaPost["__type"] == "Object")
            #expect(alphaPost["className"] == "QPost")
            #expect(alphaPost["objectId"]?.stringValue == fixture.ids["p1"])
            #expect(alphaPost["title"] == "Hello")
            let ann = try #require(alphaPost["author"], "\(alphaPost)")
            #expect(ann["__type"] == "Object")
            #expect(ann["className"] == "QAuthor")
            #expect(ann["objectId"]?.stringValue == fixture.ids["Ann"])
            #expect(ann["name"] == "Ann")
            #expect(ann["country"] == "FR")
            #expect(ann["createdAt"]?.stringValue != nil)

            #expect(byLabel["Bravo"]?["post"]?["author"]?["name"] == "Ben")
            // A post without an author, and an item without a post.
            let orphan = try #require(byLabel["zulu"]?["post"], "\(reply)")
            #expect(orphan["__type"] == "Object")
            #expect(orphan["title"] == "Orphan")
            #expect(orphan["author"] == nil)
            #expect(byLabel["東京"]?["post"] == nil)
        }
    }

    @Test func includeOneLevelLeavesDeeperPointers() async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            let reply = try await qe2eFind(api, "QItem", ["where": #"{"name":"charlie"}"#, "include": "post", "keys": "post"])
            #expect(reply.status == .ok, "\(reply)")
            let charlie = try #require(reply.results.first, "\(reply)")
            #expect(Set(charlie.objectValue?.keys.map { $0 } ?? []) == Self.builtIns.union(["post"]))
            #expect(charlie["post"]?["__type"] == "Object")
            #expect(charlie["post"]?["title"] == "Hello")
            let author = charlie["post"]?["author"]
            #expect(author == .object(["__type": "Pointer", "className": "QAuthor", "objectId": .string(fixture.ids["Ann"]!)]))
            // Without include, the pointer stays a pointer.
            let plain = try await qe2eFind(api, "QItem", ["where": #"{"name":"charlie"}"#])
            #expect(plain.results.first?["post"]?["__type"] == "Pointer", "\(plain)")
        }
    }

    @Test func includeResolvesArraysOfPointers() async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            let reply = try await qe2eFind(
                api, "QItem", ["where": #"{"refs":{"$exists":true}}"#, "include": "refs", "order": "createdAt"])
            #expect(fixture.labels(reply.results) == ["alpha", "Bravo"], "\(reply)")
            let refs = reply.results.first?["refs"]?.arrayValue ?? []
            #expect(refs.map { $0["name"] } == ["Ann", "Cal"], "\(reply)")
            #expect(refs.map { $0["__type"] } == ["Object", "Object"], "\(reply)")
            #expect(refs.map { $0["objectId"]?.stringValue } == [fixture.ids["Ann"], fixture.ids["Cal"]])
        }
    }

    /// The same query engine answers a browser SDK's tunneled `POST {"_method":"GET"}` and a
    /// `GET` inside `/batch`.
    @Test func queryThroughTunneledPostAndBatch() async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            let tunneled = try await api.send(
                .post, "/1.1/classes/QItem", headers: Headers.client,
                body: #"{"_method":"GET","where":{"flag":true},"order":"-score","limit":2,"count":1}"#)
            #expect(tunneled.status == .ok, "\(tunneled)")
            #expect(fixture.labels(tunneled.results) == ["alpha", "東京"], "\(tunneled)")
            #expect(tunneled["count"] == 4, "\(tunneled)")

            let batch = try await api.send(
                .post, "/1.1/batch", headers: Headers.client,
                body: #"""
                    {"requests":[
                      {"method":"GET","path":"/1.1/classes/QItem","params":{"where":{"tags":"red"},"order":"name"}},
                      {"method":"GET","path":"/1.1/classes/QItem?order=-name&limit=1"},
                      {"method":"GET","path":"/1.1/classes/QItem","params":{"where":{"score":{"$bad":1}}}}
                    ]}
                    """#)
            #expect(batch.status == .ok, "\(batch)")
            let answers = batch.json?.arrayValue ?? []
            try #require(answers.count == 3, "\(batch)")
            #expect(fixture.labels(answers[0]["success"]?["results"]?.arrayValue ?? []) == ["alpha", "charlie", "東京"], "\(batch)")
            #expect(fixture.labels(answers[1]["success"]?["results"]?.arrayValue ?? []) == ["東京"], "\(batch)")
            #expect(answers[2]["error"]?["code"] == 102, "\(batch)")
        }
    }

    @Test func countWithAndWithoutResults() async throws {
        try await TestServer.run { api in
            let fixture = try await QE2EFixture.seed(api)
            let everything = try await qe2eFind(api, "QItem", ["count": "1"])
            #expect(everything["count"] == 8, "\(everything)")
            #expect(everything.results.count == 8)

            let countOnly = try await qe2eFind(api, "QItem", ["count": "1", "limit": "0"])
            #expect(countOnly.status == .ok, "\(countOnly)")
            #expect(countOnly["count"] == 8, "\(countOnly)")
            #expect(countOnly["results"] == .array([]), "\(countOnly)")

            // The count ignores the window.
            let window = try await qe2eFind(api, "QItem", ["count": "1", "limit": "3", "skip": "6", "order": "name"])
            #expect(window["count"] == 8, "\(window)")
            #expect(fixture.labels(window.results) == ["zulu", "東京"], "\(window)")

            let filtered = try await qe2eFind(api, "QItem", ["where": #"{"flag":true}"#, "count": "true", "limit": "1"])
            #expect(filtered["count"] == 4, "\(filtered)")
            #expect(filtered.results.count == 1, "\(filtered)")

            let none = try await qe2eFind(api, "QItem", ["where": #"{"name":"nobody"}"#, "count": "1", "limit": "0"])
            #expect(none["count"] == 0, "\(none)")

            // Without count, no count member.
            let uncounted = try await qe2eFind(api, "QItem", ["limit": "0"])
            #expect(uncounted.status == .ok, "\(uncounted)")
            #expect(uncounted.json == .object(["results": .array([])]), "\(uncounted)")
        }
    }
}
