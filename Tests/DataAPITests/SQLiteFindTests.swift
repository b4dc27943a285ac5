import Foundation
import JSON
import TestSupport
import Testing

@testable import DataAPI

/// Conditions evaluated by the SQLite engine over a fixed set of objects. Each case seeds its own
/// database, then checks that `find` returns exactly the expected objects and `count` agrees.
@Suite("SQLite storage: find conditions")
struct SQLiteFindTests {
    let db: SQLiteTestDatabase

    init() throws {
        db = try SQLiteTestDatabase()
    }

    static let all = ["apple", "banana", "cherry", "date", "elder", "fig"]

    /// Seeds two Authors and six Items; returns placeholder → JSON text substitutions
    /// (`@apple` → its objectId, `@ptrA` → a Pointer to Author A).
    func seed() async throws -> [(String, String)] {
        let storage = db.storage
        let a = try await storage.create("Author", changes: sets(["name": "A"]))
        let b = try await storage.create("Author", changes: sets(["name": "B"]))
        let items: [[String: JSONValue]] = [
            [
                "name": "apple", "score": 10, "price": 1.5, "done": true, "tags": ["red", "fruit"],
                "when": date("2020-01-01T00:00:00.000Z"), "owner": a.pointer, "meta": ["level": 1], "group": "a",
                "likes": [a.pointer, b.pointer], "stamps": [date("2020-01-01T00:00:00.000Z")], "nums": [1, 2.5],
            ],
            [
                "name": "banana", "score": 20, "price": 0.25, "done": false, "tags": ["yellow", "fruit"],
                "when": date("2021-06-15T00:00:00.000Z"), "owner": b.pointer, "meta": ["level": 2], "group": "b",
                "likes": [b.pointer], "stamps": [date("2022-01-01T00:00:00.000Z")], "nums": [3],
            ],
            [
                "name": "cherry", "score": 5, "done": true, "tags": ["red"], "when": date("2019-03-03T00:00:00.000Z"),
                "owner": a.pointer, "group": "a",
            ],
            ["name": "date", "score": 20, "tags": [], "group": "b", "meta": ["level": "high"]],
            ["name": "elder"],
            ["name": "fig", "score": 7.5, "done": nil],
        ]
        var substitutions = [
            ("@ptrA", a.pointer.jsonString), ("@ptrB", b.pointer.jsonString), ("@idA", a.objectId),
        ]
        for item in items {
            let object = try await storage.create("Item", changes: sets(item))
            substitutions.append(("@" + item["name"]!.stringValue!, object.objectId))
        }
        return substitutions
    }

    /// The names of the Items matching `whereText`, by name; checks that `count` agrees.
    func names(_ whereText: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        var text = whereText
        for (placeholder, value) in try await seed() {
            text = text.replacingOccurrences(of: placeholder, with: value)
        }
        let query = ObjectQuery(
            className: "Item", predicate: try predicate(text), order: [SortKey(key: "name", descending: false)])
        let found = try await db.storage.find(query).map { $0.fields["name"]?.stringValue ?? "?" }
        #expect(try await db.storage.count(query) == found.count, sourceLocation: sourceLocation)
        return found
    }

    @Test("Numbers", arguments: [
        (#"{"score":20}"#, ["banana", "date"]),
        (#"{"score":{"$eq":20}}"#, ["banana", "date"]),
        (#"{"score":{"$ne":20}}"#, ["apple", "cherry", "elder", "fig"]),
        (#"{"score":{"$lt":10}}"#, ["cherry", "fig"]),
        (#"{"score":{"$lte":10}}"#, ["apple", "cherry", "fig"]),
        (#"{"score":{"$gt":7.5}}"#, ["apple", "banana", "date"]),
        (#"{"score":{"$gte":10}}"#, ["apple", "banana", "date"]),
        (#"{"score":{"$gt":5,"$lte":10}}"#, ["apple", "fig"]),
        (#"{"score":{"$in":[5,20]}}"#, ["banana", "cherry", "date"]),
        (#"{"score":{"$nin":[5,20]}}"#, ["apple", "elder", "fig"]),
        (#"{"score":{"$in":[]}}"#, []),
        (#"{"score":{"$nin":[]}}"#, all),
        (#"{"score":7.5}"#, ["fig"]),
        (#"{"score":10.0}"#, ["apple"]),
        (#"{"score":"10"}"#, []),
        (#"{"price":{"$lt":1}}"#, ["banana"]),
    ])
    func numbers(condition: String, expected: [String]) async throws {
        #expect(try await names(condition) == expected)
    }

    @Test("Strings", arguments: [
        (#"{"name":"apple"}"#, ["apple"]),
        (#"{"name":{"$gt":"c"}}"#, ["cherry", "date", "elder", "fig"]),
        (#"{"name":{"$lte":"banana"}}"#, ["apple", "banana"]),
        (#"{"name":{"$in":["apple","zzz"]}}"#, ["apple"]),
        (#"{"name":{"$ne":"apple"}}"#, ["banana", "cherry", "date", "elder", "fig"]),
        (#"{"group":"a"}"#, ["apple", "cherry"]),
        (#"{"group":{"$nin":["a"]}}"#, ["banana", "date", "elder", "fig"]),
        (#"{"name":1}"#, []),
        (#"{"name":"APPLE"}"#, []),
    ])
    func strings(condition: String, expected: [String]) async throws {
        #expect(try await names(condition) == expected)
    }

    @Test("Dates, compared as instants whatever the offset", arguments: [
        (#"{"when":{"$lt":{"__type":"Date","iso":"2020-06-01T00:00:00Z"}}}"#, ["apple", "cherry"]),
        (#"{"when":{"$gte":{"__type":"Date","iso":"2020-01-01T08:00:00+08:00"}}}"#, ["apple", "banana"]),
        (#"{"when":{"$gt":{"__type":"Date","iso":"2020-01-01T08:00:00+08:00"}}}"#, ["banana"]),
        (#"{"when":{"__type":"Date","iso":"2021-06-15T00:00:00Z"}}"#, ["banana"]),
        (#"{"when":{"$ne":{"__type":"Date","iso":"2021-06-15T00:00:00Z"}}}"#, ["apple", "cherry", "date", "elder", "fig"]),
        (#"{"when":{"$in":[{"__type":"Date","iso":"2019-03-03"}]}}"#, ["cherry"]),
        (#"{"when":"2021-06-15T00:00:00.000Z"}"#, []),
    ])
    func dates(condition: String, expected: [String]) async throws {
        #expect(try await names(condition) == expected)
    }

    @Test("Booleans and null", arguments: [
        (#"{"done":true}"#, ["apple", "cherry"]),
        (#"{"done":false}"#, ["banana"]),
        (#"{"done":{"$ne":true}}"#, ["banana", "date", "elder", "fig"]),
        (#"{"done":null}"#, ["date", "elder", "fig"]),
        (#"{"done":{"$in":[true,false]}}"#, ["apple", "banana", "cherry"]),
        (#"{"done":{"$exists":true}}"#, ["apple", "banana", "cherry", "fig"]),
        (#"{"done":1}"#, []),
    ])
    func booleans(condition: String, expected: [String]) async throws {
        #expect(try await names(condition) == expected)
    }

    @Test("Pointers", arguments: [
        (#"{"owner":@ptrA}"#, ["apple", "cherry"]),
        (#"{"owner":{"$ne":@ptrA}}"#, ["banana", "date", "elder", "fig"]),
        (#"{"owner":{"$in":[@ptrB]}}"#, ["banana"]),
        (#"{"owner":{"$nin":[@ptrA,@ptrB]}}"#, ["date", "elder", "fig"]),
        (#"{"owner":{"__type":"Pointer","className":"Other","objectId":"@idA"}}"#, []),
        (#"{"owner":{"__type":"Object","className":"Author","objectId":"@idA","name":"A"}}"#, ["apple", "cherry"]),
        (#"{"owner":{"$gt":@ptrA}}"#, []),
    ])
    func pointers(condition: String, expected: [String]) async throws {
        #expect(try await names(condition) == expected)
    }

    @Test("Arrays: a scalar means contains; an array means the same array", arguments: [
        (#"{"tags":"red"}"#, ["apple", "cherry"]),
        (#"{"tags":{"$in":["yellow","green"]}}"#, ["banana"]),
        (#"{"tags":{"$ne":"red"}}"#, ["banana", "date", "elder", "fig"]),
        (#"{"tags":{"$nin":["fruit"]}}"#, ["cherry", "date", "elder", "fig"]),
        (#"{"tags":["red","fruit"]}"#, ["apple"]),
        (#"{"tags":["fruit","red"]}"#, []),
        (#"{"tags":[]}"#, ["date"]),
        (#"{"tags":{"$ne":["red"]}}"#, ["apple", "banana", "date", "elder", "fig"]),
        (#"{"tags":{"$gt":"x"}}"#, ["banana"]),
        (#"{"tags":1}"#, []),
        (#"{"likes":@ptrA}"#, ["apple"]),
        (#"{"likes":{"$in":[@ptrB]}}"#, ["apple", "banana"]),
        (#"{"likes":{"$ne":@ptrA}}"#, ["banana", "cherry", "date", "elder", "fig"]),
        (#"{"stamps":{"$gt":{"__type":"Date","iso":"2021-01-01T00:00:00Z"}}}"#, ["banana"]),
        (#"{"stamps":{"__type":"Date","iso":"2020-01-01T08:00:00+08:00"}}"#, ["apple"]),
        (#"{"nums":2.5}"#, ["apple"]),
        (#"{"nums":{"$gte":3}}"#, ["banana"]),
        (#"{"nums":{"$lt":2}}"#, ["apple"]),
    ])
    func arrays(condition: String, expected: [String]) async throws {
        #expect(try await names(condition) == expected)
    }

    @Test("Missing fields and nested paths", arguments: [
        (#"{"price":{"$exists":false}}"#, ["cherry", "date", "elder", "fig"]),
        (#"{"price":{"$exists":true}}"#, ["apple", "banana"]),
        (#"{"price":null}"#, ["cherry", "date", "elder", "fig"]),
        (#"{"nothing":{"$exists":true}}"#, []),
        (#"{"nothing":{"$ne":1}}"#, all),
        (#"{"nothing":{"$lt":1}}"#, []),
        (#"{"nothing":null}"#, all),
        (#"{"meta.level":2}"#, ["banana"]),
        (#"{"meta.level":{"$gte":1}}"#, ["apple", "banana"]),
        (#"{"meta.level":"high"}"#, ["date"]),
        (#"{"meta.level":"2"}"#, []),
        (#"{"meta.level":{"$exists":true}}"#, ["apple", "banana", "date"]),
        (#"{"meta":{"level":1}}"#, ["apple"]),
    ])
    func missingAndNested(condition: String, expected: [String]) async throws {
        #expect(try await names(condition) == expected)
    }

    @Test("$or and $and", arguments: [
        (#"{"$or":[{"score":5},{"name":"elder"}]}"#, ["cherry", "elder"]),
        (#"{"$and":[{"group":"a"},{"score":{"$gt":5}}]}"#, ["apple"]),
        (#"{"group":"b","$or":[{"score":20},{"done":false}]}"#, ["banana", "date"]),
        (#"{"$or":[{"$and":[{"group":"a"},{"done":true}]},{"tags":[]}]}"#, ["apple", "cherry", "date"]),
        (#"{"$or":[]}"#, []),
        (#"{"$and":[]}"#, all),
        (#"{}"#, all),
    ])
    func logical(condition: String, expected: [String]) async throws {
        #expect(try await names(condition) == expected)
    }

    @Test("Built-in fields", arguments: [
        (#"{"objectId":"@apple"}"#, ["apple"]),
        (#"{"objectId":{"$in":["@apple","@banana","nope"]}}"#, ["apple", "banana"]),
        (#"{"objectId":{"$ne":"@apple"}}"#, ["banana", "cherry", "date", "elder", "fig"]),
        (#"{"objectId":{"$exists":false}}"#, []),
        (#"{"createdAt":{"$lt":"2000-01-01T00:00:00Z"}}"#, []),
        (#"{"createdAt":{"$gt":{"__type":"Date","iso":"2000-01-01T00:00:00Z"}}}"#, all),
        (#"{"updatedAt":{"$gte":"2000-01-01T08:00:00+08:00"}}"#, all),
        (#"{"updatedAt":{"$exists":true}}"#, all),
        (#"{"createdAt":"not a date"}"#, []),
        (#"{"createdAt":{"$ne":"not a date"}}"#, all),
        (#"{"createdAt":{"$lt":5}}"#, []),
    ])
    func builtIns(condition: String, expected: [String]) async throws {
        #expect(try await names(condition) == expected)
    }

    @Test("A query on a class that doesn't exist finds nothing")
    func missingClass() async throws {
        let query = ObjectQuery(className: "Nothing", predicate: try predicate(#"{"a":1}"#))
        #expect(try await db.storage.find(query).isEmpty)
        #expect(try await db.storage.count(query) == 0)
    }

    @Test("Quotes and SQL-looking text in values are plain data")
    func injectionSafe() async throws {
        let storage = db.storage
        let tricky = #"x' OR '1'='1"#
        _ = try await storage.create("Item", changes: sets(["name": .string(tricky)]))
        _ = try await storage.create("Item", changes: sets(["name": "other"]))
        let query = ObjectQuery(className: "Item", predicate: .compare(key: "name", .equal, .string(tricky)))
        #expect(try await storage.find(query).map { $0.fields["name"] } == [.string(tricky)])
        let none = ObjectQuery(className: "Item", predicate: .compare(key: "name", .equal, "x"))
        #expect(try await storage.count(none) == 0)
    }
}
