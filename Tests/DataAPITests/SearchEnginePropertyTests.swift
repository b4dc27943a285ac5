import Foundation
import JSON
import TestSupport
import Testing

@testable import DataAPI

/// Each engine's search selects what `SearchEvaluator` selects, on random English and Chinese
/// corpora and random expressions (text matches in any field or one, phrases, prefixes,
/// unigrams, conditions, AND/OR/NOT), under random restrictions, while the corpus is updated
/// and deleted from between rounds: the same ids (as a set) and the same hits.
@Suite struct SearchEnginePropertyTests {
    typealias Generator = QueryPropertyTests.Generator

    static let words = ["apple", "apply", "banana", "band", "Cola", "cold", "fox", "foxes", "swift", "Swiftly", "école", "42"]
    static let characters = Array("可口乐百事北京天气狐狸").map(String.init)
    static let indexed = ["title", "body", "tags"]

    /// A random text: words and runs of CJK characters, between spaces or punctuation.
    static func makeText(_ g: inout Generator) -> String {
        (0..<g.int(0...6)).map { _ in
            let part = g.chance(50) ? g.pick(words) : (0..<g.int(1...5)).map { _ in g.pick(characters) }.joined()
            return part + g.pick([" ", " ", ", ", "-", "。"])
        }.joined()
    }

    static func makeObject(_ g: inout Generator) -> [String: JSONValue] {
        var fields: [String: JSONValue] = ["n": .int(Int64(g.int(0...9)))]
        if g.chance(85) { fields["title"] = .string(makeText(&g)) }
        if g.chance(70) { fields["body"] = .string(makeText(&g)) }
        if g.chance(40) { fields["tags"] = .array((0..<g.int(0...3)).map { _ in .string(makeText(&g)) }) }
        if g.chance(40) { fields["other"] = .string(makeText(&g)) }
        if g.chance(30) { fields["ACL"] = ["alice": ["read": true, "write": true]] }
        return fields
    }

    /// A text match most often taken from a document of the corpus, so that it finds something.
    static func makeMatch(_ g: inout Generator, _ objects: [StoredObject]) -> SearchMatch {
        let field: String? = g.chance(50) ? nil : g.pick(indexed + ["other"])
        if g.chance(20) { return SearchAnalyzer.match(g.pick(characters), field: field)! }
        if g.chance(20) || objects.isEmpty {
            return SearchAnalyzer.match(g.pick(words), field: field, isPrefix: g.chance(20)) ?? SearchMatch(tokens: ["x"])
        }
        let source = g.pick(objects).fields[g.pick(indexed)] ?? .null
        let tokens = SearchAnalyzer.analyze(source).tokens
        guard !tokens.isEmpty else { return SearchMatch(field: field, tokens: ["fox"]) }
        let start = g.int(0...(tokens.count - 1))
        var phrase = Array(tokens[start..<min(tokens.count, start + g.int(1...3))])
        let isPrefix = g.chance(25)
        if isPrefix, let last = phrase.last {
            phrase[phrase.count - 1] = String(last.prefix(g.int(1...last.count)))
        }
        return SearchMatch(field: field, tokens: phrase, isPrefix: isPrefix)
    }

    static func makeExpression(_ g: inout Generator, depth: Int, _ objects: [StoredObject]) -> SearchExpression {
        if depth == 0 || g.chance(35) {
            switch g.int(0...9) {
            case 0: return .condition(.compare(key: "n", g.pick([.less, .greaterOrEqual, .equal]), .int(Int64(g.int(0...9)))))
            case 1: return g.chance(50) ? .everything : .condition(.exists(key: g.pick(indexed), g.chance(50)))
            default: return .text(makeMatch(&g, objects))
            }
        }
        let parts = (0..<g.int(1...3)).map { _ in makeExpression(&g, depth: depth - 1, objects) }
        switch g.int(0...2) {
        case 0: return .and(parts)
        case 1: return .or(parts)
        default: return .not(parts[0])
        }
    }

    @Test(arguments: SearchEngineTests.engines, [1, 2, 3] as [UInt64])
    func engineAgreesWithEvaluator(engine: SearchEngineTests.Engine, seed: UInt64) async throws {
        let place = SearchEngineTests.Place(engine: engine)
        defer { place.remove() }
        try await place.with { storage in
            var g = Generator(state: seed)
            var objects: [String: StoredObject] = [:]
            for _ in 0..<60 {
                let created = try await storage.create("P", changes: ObjectChanges(fields: Self.makeObject(&g).mapValues { .set($0) }))
                objects[created.objectId] = created
            }
            let settings = SearchSettings(className: "P", fields: Self.indexed)
            try await storage.setSearch("P", to: settings)
            // Rounds that select some objects but not all: what makes the comparison mean something.
            var telling = 0
            for round in 0..<120 {
                if round % 10 == 9 {
                    try await change(storage, &objects, &g)
                }
                let evaluator = SearchEvaluator(settings: settings, fields: try await storage.fieldTypes(of: "P"))
                let corpus = objects.values.sorted { $0.objectId < $1.objectId }
                let expression = Self.makeExpression(&g, depth: 3, corpus)
                let restriction: QueryPredicate? = g.pick([nil, .readableBy(["*"]), .compare(key: "n", .less, 5)])
                let visible = corpus.filter { object in restriction.map { evaluator.conditions.matches(object, $0) } ?? true }
                let expected = evaluator.matching(visible, expression)
                let order: SearchOrder = g.chance(50) ? .relevance : .keys([SortKey(key: "n", descending: true)])
                let matches = try await storage.search(
                    SearchPlan(className: "P", expression: expression, restriction: restriction, order: order, window: 1000))
                #expect(matches.ids.sorted() == expected, "seed \(seed) round \(round): \(expression) under \(String(describing: restriction))")
                #expect(matches.hits == expected.count, "seed \(seed) round \(round)")
                if !expected.isEmpty, expected.count < visible.count { telling += 1 }
            }
            #expect(telling >= 40, "seed \(seed): \(telling) rounds selected some objects but not all")
        }
    }

    /// Updates, deletes and creates a few objects, through each write path.
    private func change(_ storage: any StorageEngine, _ objects: inout [String: StoredObject], _ g: inout Generator) async throws {
        let ids = objects.keys.sorted()
        for _ in 0..<3 {
            let id = g.pick(ids)
            guard objects[id] != nil else { continue }
            var changes: [String: FieldChange] = [:]
            for (field, value) in Self.makeObject(&g) where field != "ACL" && g.chance(50) { changes[field] = .set(value) }
            if g.chance(20) { changes["body"] = .delete }
            objects[id] = try await storage.update("P", id: id, changes: ObjectChanges(fields: changes), condition: nil, check: nil)
        }
        let gone = g.pick(ids)
        if objects.removeValue(forKey: gone) != nil {
            try await storage.delete("P", id: gone, condition: nil, check: nil)
        }
        let several = [g.pick(ids), g.pick(ids)]
        for id in try await storage.delete("P", ids: several, condition: nil) { objects[id] = nil }
        let imported = StoredObject(
            className: "P", objectId: "imp" + String(g.int(100_000...999_999)), createdAt: "2024-01-01T00:00:00.000Z",
            updatedAt: "2024-01-01T00:00:00.000Z", fields: Self.makeObject(&g).filter { $0.key != "ACL" && $0.key != "n" })
        if try await storage.insertExported("P", objects: [imported], fieldTypes: [:], relations: []) == 1 {
            objects[imported.objectId] = imported
        }
        let created = try await storage.create("P", changes: ObjectChanges(fields: Self.makeObject(&g).mapValues { .set($0) }))
        objects[created.objectId] = created
    }
}
