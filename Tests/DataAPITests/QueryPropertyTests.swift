import Foundation
import JSON
import Synchronization
import Testing

@testable import DataAPI

/// The SQL engine and the in-memory `QueryEvaluator` must agree, row for row and in the same
/// order, on generated objects and generated `where` trees.
@Suite struct QueryPropertyTests {
    /// A small deterministic generator (the captcha's SplitMix64), so a failure reproduces from
    /// its seed.
    struct Generator {
        private var source: SplitMix64
        init(state: UInt64) { source = SplitMix64(seed: state) }
        mutating func next() -> UInt64 { source.next() }
        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.count))
        }
        mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
        mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }
    }

    static let strings: [JSONValue] = ["a", "b", "B", "ab", "é", "z", "", "a b"]
    static let numbers: [JSONValue] = [-2, -1, 0, 1, 2, 3, 1.5, -0.5]
    static let dates: [JSONValue] = [
        "2020-01-01T00:00:00.000Z", "2021-06-15T12:00:00.000Z", "2019-12-31T23:59:59.999Z",
    ].map { ["__type": "Date", "iso": $0] }

    static func makeObject(_ g: inout Generator, pointers: [JSONValue]) -> [String: JSONValue] {
        var fields: [String: JSONValue] = [:]
        if g.chance(85) { fields["n"] = g.chance(10) ? .null : g.pick(numbers) }
        if g.chance(85) { fields["s"] = g.chance(10) ? .null : g.pick(strings) }
        if g.chance(80) { fields["b"] = .bool(g.chance(50)) }
        if g.chance(80) { fields["d"] = g.pick(dates) }
        if g.chance(80) {
            if g.chance(10) {
                fields["tags"] = .null
            } else {
                let elements = (0..<g.int(0...3)).map { _ in g.chance(50) ? g.pick(strings) : g.pick(numbers) }
                fields["tags"] = .array(elements)
            }
        }
        if g.chance(75) { fields["p"] = g.pick(pointers) }
        if g.chance(75) {
            var nested: [String: JSONValue] = [:]
            if g.chance(80) { nested["x"] = g.chance(50) ? g.pick(numbers) : g.pick(strings) }
            fields["o"] = .object(nested)
        }
        return fields
    }

    static func makeConstant(_ g: inout Generator, pointers: [JSONValue]) -> JSONValue {
        switch g.int(0...9) {
        case 0...2: return g.pick(numbers)
        case 3...5: return g.pick(strings)
        case 6: return g.pick(dates)
        case 7: return g.pick(pointers)
        case 8: return .bool(g.chance(50))
        default: return g.chance(50) ? .null : .array([g.pick(strings)])
        }
    }

    static let keys = ["n", "s", "b", "d", "tags", "p", "o.x", "o", "missing", "createdAt", "objectId"]

    static func makePredicate(_ g: inout Generator, depth: Int, pointers: [JSONValue]) -> QueryPredicate {
        if depth > 0, g.chance(35) {
            let children = (0..<g.int(1...3)).map { _ in makePredicate(&g, depth: depth - 1, pointers: pointers) }
            return g.chance(50) ? .and(children) : .or(children)
        }
        let key = g.pick(keys)
        switch g.int(0...9) {
        case 0...4:
            let op = g.pick([ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual])
            return .compare(key: key, op, makeConstant(&g, pointers: pointers))
        case 5:
            let values = (0..<g.int(0...3)).map { _ in makeConstant(&g, pointers: pointers) }
            return .oneOf(key: key, values, negated: g.chance(50))
        case 6: return .exists(key: key, g.chance(50))
        case 7: return .containsAll(key: key, (0..<g.int(0...2)).map { _ in g.pick(strings + numbers) })
        case 8: return .size(key: key, g.int(0...3))
        default: return .regex(key: key, pattern: g.pick(["^a", "b$", "é", "^$", "A"]), options: g.pick(["", "i"]))
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func sqlAgreesWithEvaluator(seed: UInt64) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fh-prop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteStorage(path: directory.appendingPathComponent("db.sqlite").path)
        try await Self.check(storage, seed: seed, orderKeys: ["n", "s", "b", "d", "tags", "p", "o.x", "createdAt"])
    }

    /// Generates objects and queries from `seed` and checks that `storage` answers each query as
    /// the evaluator does, sorting by `orderKeys`.
    static func check(_ storage: any StorageEngine, seed: UInt64, orderKeys: [String]) async throws {
        let normalizer = ValueNormalizer(classExists: { storage.isKnownClass($0) })
        var g = Generator(state: seed)

        var pointers: [JSONValue] = []
        for _ in 0..<3 {
            let target = try await storage.create("T", changes: ObjectChanges())
            pointers.append(target.pointer)
        }
        var objects: [StoredObject] = []
        for _ in 0..<80 {
            let fields = Self.makeObject(&g, pointers: pointers)
            let changes = try ObjectChanges(body: fields, normalizer: normalizer)
            objects.append(try await storage.create("Q", changes: changes))
        }
        let schema = try await storage.fieldTypes(of: "Q")
        let evaluator = QueryEvaluator(fields: schema)

        for round in 0..<150 {
            let predicate = Self.makePredicate(&g, depth: 3, pointers: pointers)
            let order = (0..<g.int(0...2)).map { _ in
                SortKey(key: g.pick(orderKeys), descending: g.chance(50))
            }
            let skip = g.chance(30) ? g.int(0...10) : 0
            let limit = g.chance(30) ? g.int(0...20) : 1000
            let query = ObjectQuery(className: "Q", predicate: predicate, order: order, limit: limit, skip: skip)

            let fromSQL = try await storage.find(query).map(\.objectId)
            let filtered = objects.filter { evaluator.matches($0, predicate) }
            let expected = evaluator.sorted(filtered, by: order).dropFirst(skip).prefix(limit).map(\.objectId)
            #expect(fromSQL == Array(expected), "seed \(seed) round \(round): \(predicate) order \(order)")
            let count = try await storage.count(query)
            #expect(count == filtered.count, "seed \(seed) round \(round) count: \(predicate)")
        }
    }
}
