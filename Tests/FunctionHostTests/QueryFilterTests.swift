import DataAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Five items of every kind of field, created in a known order, and two owners they point to.
struct QueryFixture: Sendable {
    let owners: [String]
    /// Item ids by name.
    let items: [String: String]

    static let names = ["apple", "banana", "cherry", "date", "elder"]

    static func seed(_ api: API) async throws -> QueryFixture {
        // Two writes, so the Owner class is current in the server's catalog for pointer checks.
        let owner1 = try await api.create("Owner", ["name": "Ada"])
        let owner2 = try await api.create("Owner", ["name": "Bob"])
        let bodies: [JSONValue] = [
            [
                "name": "apple", "score": 10, "active": true, "tags": ["red", "fruit"],
                "when": date("2024-01-01T00:00:00Z"), "owner": pointer("Owner", owner1), "group": "a",
                "meta": ["level": 1],
            ],
            [
                "name": "banana", "score": 20, "active": false, "tags": ["yellow", "fruit"],
                "when": date("2024-02-01T00:00:00Z"), "owner": pointer("Owner", owner2), "group": "b",
                "meta": ["level": 2],
            ],
            [
                "name": "cherry", "score": 30, "active": true, "tags": ["red"], "when": date("2024-03-01T00:00:00Z"),
                "owner": pointer("Owner", owner1), "group": "a", "meta": ["level": 2],
            ],
            ["name": "date", "score": 20, "active": true, "tags": [], "when": date("2024-04-01T00:00:00Z"), "group": "b"],
            ["name": "elder", "score": 5.5, "active": false, "group": "c"],
        ]
        var items: [String: String] = [:]
        for body in bodies { items[body["name"]!.stringValue!] = try await api.create("Item", body) }
        return QueryFixture(owners: [owner1, owner2], items: items)
    }
}

/// The names of query results, in order.
func names(_ results: [JSONValue]) -> [String] {
    results.compactMap { $0["name"]?.stringValue }
}

/// A `where` condition and the items it must select, in creation order.
struct Condition: Sendable, CustomTestStringConvertible {
    let json: String
    let expected: [String]

    init(_ json: String, _ expected: [String]) {
        self.json = json
        self.expected = expected
    }

    var testDescription: String { json }
}

/// `where`: equality and comparison operators on every kind of field.
@Suite struct QueryFilterTests {
    static let conditions: [Condition] = [
        Condition(#"{}"#, ["apple", "banana", "cherry", "date", "elder"]),
        Condition(#"{"name":"banana"}"#, ["banana"]),
        Condition(#"{"name":{"$eq":"date"}}"#, ["date"]),
        Condition(#"{"score":20}"#, ["banana", "date"]),
        Condition(#"{"score":5.5}"#, ["elder"]),
        Condition(#"{"score":20.0}"#, ["banana", "date"]),
        Condition(#"{"active":true}"#, ["apple", "cherry", "date"]),
        Condition(#"{"active":false}"#, ["banana", "elder"]),
        Condition(#"{"when":{"__type":"Date","iso":"2024-02-01T00:00:00Z"}}"#, ["banana"]),
        Condition(#"{"when":{"__type":"Date","iso":"2024-02-01T08:00:00+08:00"}}"#, ["banana"]),
        Condition(#"{"tags":"red"}"#, ["apple", "cherry"]),
        Condition(#"{"tags":"fruit"}"#, ["apple", "banana"]),
        Condition(#"{"tags":["yellow","fruit"]}"#, ["banana"]),
        Condition(#"{"tags":[]}"#, ["date"]),
        Condition(#"{"meta":{"level":2}}"#, ["banana", "cherry"]),
        Condition(#"{"meta.level":2}"#, ["banana", "cherry"]),
        Condition(#"{"meta.level":{"$lt":2}}"#, ["apple"]),
        Condition(#"{"group":"a","active":true}"#, ["apple", "cherry"]),
        Condition(#"{"name":{"$ne":"apple"}}"#, ["banana", "cherry", "date", "elder"]),
        Condition(#"{"score":{"$lt":20}}"#, ["apple", "elder"]),
        Condition(#"{"score":{"$lte":20}}"#, ["apple", "banana", "date", "elder"]),
        Condition(#"{"score":{"$gt":20}}"#, ["cherry"]),
        Condition(#"{"score":{"$gte":20}}"#, ["banana", "cherry", "date"]),
        Condition(#"{"score":{"$gte":10,"$lt":30}}"#, ["apple", "banana", "date"]),
        Condition(#"{"score":{"$gt":5,"$lt":6}}"#, ["elder"]),
        Condition(#"{"name":{"$gt":"c"}}"#, ["cherry", "date", "elder"]),
        Condition(#"{"name":{"$lte":"banana"}}"#, ["apple", "banana"]),
        Condition(#"{"when":{"$lt":{"__type":"Date","iso":"2024-03-01T00:00:00Z"}}}"#, ["apple", "banana"]),
        Condition(#"{"when":{"$gte":{"__type":"Date","iso":"2024-02-01T00:00:00.000+00:00"}}}"#, ["banana", "cherry", "date"]),
        Condition(#"{"score":{"$in":[10,30,99]}}"#, ["apple", "cherry"]),
        Condition(#"{"name":{"$in":["apple","elder","zzz"]}}"#, ["apple", "elder"]),
        Condition(#"{"name":{"$in":[]}}"#, []),
        Condition(#"{"score":{"$nin":[10,20]}}"#, ["cherry", "elder"]),
        Condition(#"{"tags":{"$in":["yellow","red"]}}"#, ["apple", "banana", "cherry"]),
        Condition(#"{"tags":{"$nin":["red"]}}"#, ["banana", "date", "elder"]),
        Condition(#"{"tags":{"$ne":"fruit"}}"#, ["cherry", "date", "elder"]),
        Condition(#"{"owner":{"$exists":true}}"#, ["apple", "banana", "cherry"]),
        Condition(#"{"tags":{"$exists":false}}"#, ["elder"]),
        Condition(#"{"meta.level":{"$exists":true}}"#, ["apple", "banana", "cherry"]),
        Condition(#"{"$or":[{"name":"apple"},{"score":{"$gt":25}}]}"#, ["apple", "cherry"]),
        Condition(#"{"$and":[{"active":true},{"score":{"$gte":20}}]}"#, ["cherry", "date"]),
        Condition(#"{"$and":[{"group":"a"},{"$or":[{"score":10},{"score":20}]}]}"#, ["apple"]),
        Condition(#"{"group":"b","$or":[{"active":true},{"score":{"$lt":0}}]}"#, ["date"]),
        Condition(#"{"$or":[]}"#, []),
        Condition(#"{"createdAt":{"$gt":"2000-01-01T00:00:00Z"}}"#, ["apple", "banana", "cherry", "date", "elder"]),
        Condition(#"{"createdAt":{"$lt":{"__type":"Date","iso":"2000-01-01T00:00:00Z"}}}"#, []),
        Condition(#"{"updatedAt":{"$exists":true}}"#, ["apple", "banana", "cherry", "date", "elder"]),
        Condition(#"{"nope":1}"#, []),
        Condition(#"{"nope":{"$exists":false}}"#, ["apple", "banana", "cherry", "date", "elder"]),
        Condition(#"{"score":"20"}"#, []),
        Condition(#"{"name":10}"#, []),
        Condition(#"{"active":1}"#, []),
    ]

    @Test(arguments: conditions)
    func whereSelectsTheMatchingObjects(_ condition: Condition) async throws {
        try await TestServer.run { api in
            _ = try await QueryFixture.seed(api)
            let results = try await api.matching("Item", condition.json)
            #expect(names(results) == condition.expected)
            // count agrees with the results.
            let counted = try await api.find("Item", ["where": condition.json, "count": "1", "limit": "0"])
            #expect(counted["count"] == .int(Int64(condition.expected.count)), "\(counted)")
            #expect(counted.results.isEmpty)
        }
    }

    @Test func pointersAndObjectIdsMatchByIdentity() async throws {
        try await TestServer.run { api in
            let fixture = try await QueryFixture.seed(api)
            let (ada, bob) = (fixture.owners[0], fixture.owners[1])
            #expect(names(try await api.matching("Item", #"{"owner":\#(pointer("Owner", ada).jsonString)}"#)) == ["apple", "cherry"])
            // A full object value means its pointer.
            let object = #"{"__type":"Object","className":"Owner","objectId":"\#(bob)","name":"Bob"}"#
            #expect(names(try await api.matching("Item", #"{"owner":\#(object)}"#)) == ["banana"])
            #expect(
                names(try await api.matching("Item", #"{"owner":{"$ne":\#(pointer("Owner", ada).jsonString)}}"#))
                    == ["banana", "date", "elder"])
            #expect(
                names(try await api.matching("Item", #"{"owner":{"$in":[\#(pointer("Owner", bob).jsonString)]}}"#))
                    == ["banana"])
            // Same id, other class: no match.
            #expect(try await api.matching("Item", #"{"owner":\#(pointer("Item", ada).jsonString)}"#).isEmpty)
            let cherry = try #require(fixture.items["cherry"])
            #expect(names(try await api.matching("Item", #"{"objectId":"\#(cherry)"}"#)) == ["cherry"])
            #expect(names(try await api.matching("Item", #"{"objectId":{"$in":["\#(cherry)","nope"]}}"#)) == ["cherry"])
            #expect(try await api.matching("Item", #"{"objectId":{"$ne":"\#(cherry)"}}"#).count == 4)
        }
    }

    @Test func stringsWithSpecialCharactersMatchExactly() async throws {
        try await TestServer.run { api in
            let values = ["C++", "a&b=c", "100%", "quote\"s", "space d", "naïve 🌍", "semi;colon", "plus+and space"]
            for value in values { _ = try await api.create("Text", ["value": .string(value)]) }
            for value in values {
                let condition = JSONValue.object(["value": .string(value)]).jsonString
                let results = try await api.matching("Text", condition)
                #expect(results.map { $0["value"] } == [.string(value)], "\(value)")
            }
        }
    }

    @Test func queriesWorkUnderBothPrefixesAndByTunneledPost() async throws {
        try await TestServer.run { api in
            _ = try await QueryFixture.seed(api)
            let parameters = queryString(["where": #"{"group":"a"}"#, "order": "name"])
            let old = try await api.get("/1/classes/Item" + parameters)
            #expect(old.status == .ok)
            #expect(names(old.results) == ["apple", "cherry"])

            let tunneled = try await api.post(
                "/1.1/classes/Item", ["_method": "GET", "where": ["group": "a"], "order": "-name", "limit": 1])
            #expect(tunneled.status == .ok, "\(tunneled)")
            #expect(names(tunneled.results) == ["cherry"])
            // The tunneled GET didn't create anything.
            #expect(try await api.count("Item") == 5)
        }
    }

    @Test func longInListsWork() async throws {
        try await TestServer.run { api in
            _ = try await QueryFixture.seed(api)
            // Past SQLite's old 999-variable limit, at the bound a list may have.
            let scores: [JSONValue] = (0..<QueryPredicate.maxListValues).map { .int(Int64($0)) }
            let short = try await api.post(
                "/1.1/classes/Item", ["_method": "GET", "where": ["score": ["$in": .array(Array(scores.prefix(500)))]], "order": "name"])
            #expect(names(short.results) == ["apple", "banana", "cherry", "date"], "\(short)")
            let long = try await api.post(
                "/1.1/classes/Item", ["_method": "GET", "where": ["score": ["$in": .array(scores)]], "order": "name"])
            #expect(long.status == .ok, "\(long)")
            #expect(names(long.results) == ["apple", "banana", "cherry", "date"])
        }
    }

    static let invalidWhere: [String] = [
        #"not json"#, #"{"name":"#, #"[1]"#, #""name""#, #"{"score":{"$bogus":1}}"#, #"{"a-b":1}"#,
        #"{"$foo":[{"a":1}]}"#, #"{"$or":{"a":1}}"#, #"{"$or":[1]}"#, #"{"score":{"$in":5}}"#,
        #"{"score":{"$nin":"x"}}"#, #"{"x":{"$exists":"yes"}}"#, #"{"when":{"__type":"Date","iso":"bad"}}"#,
        #"{"owner":{"__type":"Pointer","className":"Owner"}}"#, #"{"score":{"$gt":{"$lt":1}}}"#,
    ]

    @Test(arguments: invalidWhere)
    func invalidWhereIs102(_ condition: String) async throws {
        try await TestServer.run { api in
            _ = try await api.create("Item", ["name": "x"])
            expectError(try await api.find("Item", ["where": condition]), code: 102, status: .badRequest)
        }
    }
}
