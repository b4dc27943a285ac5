import JSON
import TestSupport
import Testing

@testable import DataAPI

@Suite("SQLite storage: order, limit, skip, count")
struct SQLiteOrderTests {
    let db: SQLiteTestDatabase
    var storage: SQLiteStorage { db.storage }

    init() throws {
        db = try SQLiteTestDatabase()
    }

    /// Creates the rows in this order and returns their ids in the same order.
    @discardableResult
    func seed(_ rows: [[String: JSONValue]], className: String = "Row") async throws -> [String] {
        var ids: [String] = []
        for row in rows { ids.append(try await storage.create(className, changes: sets(row)).objectId) }
        return ids
    }

    func names(_ order: String, limit: Int = 100, skip: Int = 0, where condition: String? = nil) async throws -> [String] {
        var parameters = ["order": order, "limit": String(limit), "skip": String(skip)]
        if let condition { parameters["where"] = condition }
        let query = try ObjectQuery(className: "Row", parameters: parameters)
        return try await storage.find(query).map { $0.fields["name"]?.stringValue ?? "?" }
    }

    static let rows: [[String: JSONValue]] = [
        ["name": "c", "group": "x", "score": 2, "when": date("2021-01-01T00:00:00.000Z"), "meta": ["rank": 3]],
        ["name": "a", "group": "y", "score": 3.5, "when": date("2020-01-01T00:00:00.000Z"), "meta": ["rank": 1]],
        ["name": "e", "group": "x", "score": 10, "when": date("2022-01-01T00:00:00.000Z"), "meta": ["rank": 2]],
        ["name": "b", "group": "y", "score": 2, "when": date("2019-06-01T00:00:00.000Z")],
        ["name": "d", "group": "x", "score": -1],
    ]

    @Test("Without an order, results come in insertion order")
    func insertionOrder() async throws {
        try await seed(Self.rows)
        #expect(try await storage.find(ObjectQuery(className: "Row")).map { $0.fields["name"] } == ["c", "a", "e", "b", "d"])
    }

    @Test("Ascending and descending on one key", arguments: [
        ("name", ["a", "b", "c", "d", "e"]),
        ("-name", ["e", "d", "c", "b", "a"]),
        ("score", ["d", "c", "b", "a", "e"]),
        ("-score", ["e", "a", "c", "b", "d"]),
    ])
    func singleKey(order: String, expected: [String]) async throws {
        try await seed(Self.rows)
        #expect(try await names(order) == expected)
    }

    @Test("Ties on the first key are broken by the next ones", arguments: [
        ("group,-score,name", ["e", "c", "d", "a", "b"]),
        ("-group,name", ["a", "b", "c", "d", "e"]),
        ("score,-name", ["d", "c", "b", "a", "e"]),
        ("score,name", ["d", "b", "c", "a", "e"]),
    ])
    func multiKey(order: String, expected: [String]) async throws {
        try await seed(Self.rows)
        #expect(try await names(order) == expected)
    }

    @Test("Dates order by instant; missing values sort first ascending, last descending")
    func dateOrder() async throws {
        try await seed(Self.rows)
        #expect(try await names("when") == ["d", "b", "a", "c", "e"])
        #expect(try await names("-when") == ["e", "c", "a", "b", "d"])
    }

    @Test("Nested paths can be ordered")
    func nestedOrder() async throws {
        try await seed(Self.rows)
        #expect(try await names("meta.rank") == ["b", "d", "a", "e", "c"])
        #expect(try await names("-meta.rank") == ["c", "e", "a", "b", "d"])
    }

    @Test("createdAt and updatedAt order; ties keep insertion order")
    func builtInOrder() async throws {
        let ids = try await seed((0..<20).map { ["name": .string("n\($0)")] })
        let ascending = try await storage.find(ObjectQuery(className: "Row", order: [SortKey(key: "createdAt", descending: false)]))
        let descending = try await storage.find(ObjectQuery(className: "Row", order: [SortKey(key: "createdAt", descending: true)]))
        #expect(Set(ascending.map(\.objectId)) == Set(ids))
        // Objects created in the same millisecond share a createdAt; rowid then keeps insertion order.
        let position = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        func sorted(descending: Bool) -> [String] {
            ascending.sorted { lhs, rhs in
                guard lhs.createdAt != rhs.createdAt else { return position[lhs.objectId]! < position[rhs.objectId]! }
                return descending ? lhs.createdAt > rhs.createdAt : lhs.createdAt < rhs.createdAt
            }.map(\.objectId)
        }
        #expect(ascending.map(\.objectId) == sorted(descending: false))
        #expect(descending.map(\.objectId) == sorted(descending: true))

        // Touching the first object makes it the most recently updated.
        _ = try await storage.update("Row", id: ids[0], changes: sets(["touched": true]), condition: nil)
        let byUpdate = try await storage.find(ObjectQuery(className: "Row", order: [SortKey(key: "updatedAt", descending: true)]))
        #expect(byUpdate.first?.objectId == ids[0])
    }

    @Test("limit and skip window the ordered results", arguments: [
        (2, 0, ["a", "b"]),
        (2, 1, ["b", "c"]),
        (3, 3, ["d", "e"]),
        (10, 5, []),
        (100, 0, ["a", "b", "c", "d", "e"]),
        (1, 4, ["e"]),
    ])
    func window(limit: Int, skip: Int, expected: [String]) async throws {
        try await seed(Self.rows)
        #expect(try await names("name", limit: limit, skip: skip) == expected)
    }

    @Test("Paging with limit and skip visits every object once")
    func paging() async throws {
        let ids = try await seed((0..<23).map { ["i": .int(Int64($0))] })
        var seen: [String] = []
        for page in 0..<5 {
            let query = ObjectQuery(className: "Row", order: [SortKey(key: "i", descending: true)], limit: 5, skip: page * 5)
            seen += try await storage.find(query).map(\.objectId)
        }
        #expect(seen == Array(ids.reversed()))
    }

    @Test("count ignores limit, skip and order but honours the condition")
    func count() async throws {
        try await seed(Self.rows)
        let all = ObjectQuery(className: "Row", order: [SortKey(key: "name", descending: false)], limit: 1, skip: 3)
        #expect(try await storage.count(all) == 5)
        let some = ObjectQuery(className: "Row", predicate: try predicate(#"{"group":"x"}"#), limit: 1)
        #expect(try await storage.count(some) == 3)
        #expect(try await storage.find(some).count == 1)
        let none = ObjectQuery(className: "Row", predicate: try predicate(#"{"score":{"$gt":100}}"#))
        #expect(try await storage.count(none) == 0)
    }

    @Test("A condition, an order and a window combine")
    func combined() async throws {
        try await seed(Self.rows)
        #expect(try await names("-score", limit: 2, skip: 1, where: #"{"score":{"$lt":10}}"#) == ["c", "b"])
    }

    @Test("limit 1000 returns up to 1000 objects")
    func largeLimit() async throws {
        try await seed((0..<150).map { ["i": .int(Int64($0))] })
        let query = ObjectQuery(className: "Row", limit: ObjectQuery.maxLimit)
        #expect(try await storage.find(query).count == 150)
        #expect(try await storage.find(ObjectQuery(className: "Row")).count == 100)
    }
}
