import Foundation
import JSON
import TestSupport
import Testing

@testable import DataAPI

/// PostgreSQL's search selects what `SearchEvaluator` selects: random Chinese and English
/// corpora, random expressions (phrases, one field or any, prefixes, unigrams, conditions, AND,
/// OR, NOT) and restrictions; the same ids as a set and the same `hits`, and a window that is
/// the head of the full order.
@Suite(.enabled(if: TestDatabase.server != nil, "needs FUNCTIONHOST_TEST_DATABASE_URL"))
struct PostgresSearchPropertyTests {
    typealias Generator = QueryPropertyTests.Generator

    static let words = ["apple", "apply", "app", "banana", "band", "can", "cannot", "dog", "dogma", "x1", "42"]
    static let characters = Array("可口乐苹果手机香蕉中国人我爱").map(String.init)
    static let indexed = ["title", "body", "tags"]

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func postgresAgreesWithEvaluator(seed: UInt64) async throws {
        try await StorageEngineTests.withPostgres { storage in
            try await Self.check(storage, seed: seed)
        }
    }

    /// Builds a corpus in `storage`, turns search on and compares 60 searches with the evaluator.
    static func check(_ storage: any StorageEngine, seed: UInt64) async throws {
        var g = Generator(state: seed)
        // Half the corpus is written before search is on (the build), half after (the writes).
        for _ in 0..<20 { _ = try await storage.create("Doc", changes: makeChanges(&g)) }
        let settings = SearchSettings(className: "Doc", fields: indexed)
        try await storage.setSearch("Doc", to: settings)
        for _ in 0..<20 { _ = try await storage.create("Doc", changes: makeChanges(&g)) }
        var objects = try await storage.scan("Doc", predicate: nil, after: nil, limit: 1000)
        for object in objects.prefix(5) {
            _ = try await storage.update("Doc", id: object.objectId, changes: makeChanges(&g), condition: nil)
        }
        objects = try await storage.scan("Doc", predicate: nil, after: nil, limit: 1000)
        let evaluator = SearchEvaluator(settings: settings, fields: try await storage.fieldTypes(of: "Doc"))
        // Rounds that select some objects and not all: the comparison is not of empty sets.
        var selective = 0
        for round in 0..<60 {
            let expression = makeExpression(&g, depth: 2)
            let restriction: QueryPredicate? = g.chance(30) ? .compare(key: "n", .less, .int(Int64(g.int(0...9)))) : nil
            let visible = objects.filter { object in restriction.map { evaluator.conditions.matches(object, $0) } ?? true }
            let expected = evaluator.matching(visible, expression)
            if !expected.isEmpty, expected.count < visible.count { selective += 1 }
            let order: SearchOrder = g.chance(50) ? .relevance : .keys([SortKey(key: "n", descending: g.chance(50))])
            let plan = SearchPlan(className: "Doc", expression: expression, restriction: restriction, order: order, window: 1000)
            let all = try await storage.search(plan)
            #expect(all.ids.sorted() == expected, "seed \(seed) round \(round): \(expression)")
            #expect(all.hits == expected.count, "seed \(seed) round \(round)")
            var window = plan
            window.window = 3
            let head = try await storage.search(window)
            #expect(head.ids == Array(all.ids.prefix(3)), "seed \(seed) round \(round)")
            #expect(head.hits == expected.count)
        }
        #expect(selective >= 20, "seed \(seed): \(selective) selective rounds")
    }

    static func makeChanges(_ g: inout Generator) -> ObjectChanges {
        var fields: [String: FieldChange] = ["n": .set(.int(Int64(g.int(0...9))))]
        if g.chance(85) { fields["title"] = .set(.string(makeText(&g))) }
        if g.chance(70) { fields["body"] = .set(.string(makeText(&g))) }
        if g.chance(30) { fields["tags"] = .set(.array([.string(makeText(&g)), .int(1), .string(makeText(&g))])) }
        if g.chance(50) { fields["other"] = .set(.string(makeText(&g))) }
        return ObjectChanges(fields: fields)
    }

    /// English words and runs of Chinese characters, with punctuation between some.
    static func makeText(_ g: inout Generator) -> String {
        var text = ""
        for _ in 0..<g.int(1...6) {
            if g.chance(50) {
                text += g.pick(words).capitalized(if: g.chance(20))
            } else {
                for _ in 0..<g.int(1...4) { text += g.pick(characters) }
            }
            text += g.pick([" ", " ", ", ", "!", "-", "。"])
        }
        return text
    }

    static func makeExpression(_ g: inout Generator, depth: Int) -> SearchExpression {
        let roll = depth == 0 ? g.int(0...5) : g.int(0...9)
        switch roll {
        case 0...3: return .text(makeMatch(&g))
        case 4: return .condition(.compare(key: "n", g.pick([.less, .greaterOrEqual, .equal]), .int(Int64(g.int(0...9)))))
        case 5: return g.chance(50) ? .everything : .text(makeMatch(&g))
        case 6: return .not(makeExpression(&g, depth: depth - 1))
        case 7: return .or((0..<g.int(0...3)).map { _ in makeExpression(&g, depth: depth - 1) })
        default: return .and((0..<g.int(0...3)).map { _ in makeExpression(&g, depth: depth - 1) })
        }
    }

    /// A word, a prefix of one, a phrase of words or characters, or one character, in a field
    /// (indexed or not) or any.
    static func makeMatch(_ g: inout Generator) -> SearchMatch {
        let field: String? = g.chance(50) ? nil : g.pick(["title", "body", "tags", "other"])
        var text: String
        var isPrefix = false
        switch g.int(0...4) {
        case 0: text = g.pick(words)
        case 1:
            let word = g.pick(words)
            text = String(word.prefix(g.int(1...word.count)))
            isPrefix = true
        case 2: text = g.pick(words) + " " + g.pick(words)
        case 3: text = (0..<g.int(2...4)).map { _ in g.pick(characters) }.joined()
        default: text = g.pick(characters)
        }
        return SearchAnalyzer.match(text, field: field, isPrefix: isPrefix)
            ?? SearchMatch(field: field, tokens: ["never"])
    }
}

extension String {
    fileprivate func capitalized(if flag: Bool) -> String {
        flag ? prefix(1).uppercased() + dropFirst() : self
    }
}
