import Foundation
import JSON
import TestSupport
import Testing

@testable import DataAPI

/// Full-text search at the engine: SQLite always, PostgreSQL too when
/// `FUNCTIONHOST_TEST_DATABASE_URL` names a server. The same corpora and questions, the same
/// answers (as sets: relevance is each engine's own).
@Suite struct SearchEngineTests {
    typealias Engine = UniqueIndexTests.Engine
    typealias Place = UniqueIndexTests.Place

    static let engines = UniqueIndexTests.engines

    /// English and Chinese documents, by a name the tests use; `n` orders them, `note` is never
    /// indexed.
    static let corpus: [String: [String: JSONValue]] = [
        "coke": ["title": "Coca-Cola history", "body": "可口可乐是一种碳酸饮料", "n": 1],
        "pepsi": ["title": "百事可乐", "body": "Pepsi is a cola drink from America", "n": 2],
        "swift": ["title": "Swift programming", "body": "Full-text search with SQLite FTS5 and brown foxes", "n": 3],
        "fox": ["title": "狐狸的故事", "body": "The quick brown fox jumps over the lazy dog", "n": 4],
        "beijing": ["title": "北京天气", "body": "今天北京下雨，明天晴", "n": 5],
        "note": ["title": "Nothing indexed here", "note": "cola 可乐", "n": 6],
    ]

    /// A text match as the query parser makes it.
    static func text(_ words: String, field: String? = nil, prefix: Bool = false) -> SearchExpression {
        .text(SearchAnalyzer.match(words, field: field, isPrefix: prefix)!)
    }

    /// An engine with the corpus in `className`, search on for its title and body; the ids of
    /// the corpus's documents by name.
    static func filled(_ storage: any StorageEngine, _ className: String = "Article") async throws -> [String: String] {
        var ids: [String: String] = [:]
        for (name, fields) in corpus {
            let created = try await storage.create(className, changes: ObjectChanges(fields: fields.mapValues { .set($0) }))
            ids[name] = created.objectId
        }
        try await storage.setSearch(className, to: SearchSettings(className: className, fields: ["title", "body"]))
        return ids
    }

    /// Runs `body` on an engine of its own holding the corpus (`filled`).
    static func withCorpus(
        _ engine: Engine, _ body: @escaping (any StorageEngine, [String: String]) async throws -> Void
    ) async throws {
        let place = Place(engine: engine)
        defer { place.remove() }
        try await place.with { storage in try await body(storage, try await filled(storage)) }
    }

    /// The names of the documents an expression finds, and the engine's hits.
    static func found(
        _ storage: any StorageEngine, _ expression: SearchExpression, _ ids: [String: String],
        restriction: QueryPredicate? = nil, className: String = "Article"
    ) async throws -> Set<String> {
        let matches = try await storage.search(
            SearchPlan(className: className, expression: expression, restriction: restriction, order: .relevance, window: 1000))
        #expect(matches.hits == matches.ids.count)
        let names = Dictionary(uniqueKeysWithValues: ids.map { ($0.value, $0.key) })
        return Set(matches.ids.map { names[$0] ?? $0 })
    }

    @Test(arguments: engines)
    func recallsEnglishAndChineseDocuments(engine: Engine) async throws {
        try await Self.withCorpus(engine) { (storage: any StorageEngine, ids: [String: String]) async throws in
            #expect(try await Self.found(storage, Self.text("可乐"), ids) == ["coke", "pepsi"])
            #expect(try await Self.found(storage, Self.text("cola"), ids) == ["coke", "pepsi"])
            #expect(try await Self.found(storage, Self.text("COLA"), ids) == ["coke", "pepsi"])
            #expect(try await Self.found(storage, Self.text("碳酸饮料"), ids) == ["coke"])
            #expect(try await Self.found(storage, Self.text("北京"), ids) == ["beijing"])
            #expect(try await Self.found(storage, Self.text("明天"), ids) == ["beijing"])
            #expect(try await Self.found(storage, Self.text("fts5"), ids) == ["swift"])
            #expect(try await Self.found(storage, Self.text("nothing"), ids) == ["note"])
            #expect(try await Self.found(storage, Self.text("absent"), ids).isEmpty)
            #expect(try await Self.found(storage, Self.text("乐可"), ids).isEmpty)
            #expect(try await Self.found(storage, .everything, ids) == Set(Self.corpus.keys))
        }
    }

    @Test(arguments: engines)
    func matchesPhrasesFieldsPrefixesAndUnigrams(engine: Engine) async throws {
        try await Self.withCorpus(engine) { (storage: any StorageEngine, ids: [String: String]) async throws in
            #expect(try await Self.found(storage, Self.text("brown fox"), ids) == ["fox"])
            #expect(try await Self.found(storage, Self.text("fox brown"), ids).isEmpty)
            #expect(try await Self.found(storage, Self.text("brown fox", prefix: true), ids) == ["fox", "swift"])
            #expect(try await Self.found(storage, Self.text("progr", prefix: true), ids) == ["swift"])
            #expect(try await Self.found(storage, Self.text("progr"), ids).isEmpty)
            #expect(try await Self.found(storage, Self.text("可乐", field: "title"), ids) == ["pepsi"])
            #expect(try await Self.found(storage, Self.text("可乐", field: "body"), ids) == ["coke"])
            // A field search isn't on for holds nothing searchable.
            #expect(try await Self.found(storage, Self.text("cola", field: "note"), ids).isEmpty)
            // One CJK character is looked up among the unigrams.
            #expect(try await Self.found(storage, Self.text("狐"), ids) == ["fox"])
            #expect(try await Self.found(storage, Self.text("雨"), ids) == ["beijing"])
            #expect(try await Self.found(storage, Self.text("乐", field: "title"), ids) == ["pepsi"])
            #expect(try await Self.found(storage, Self.text("乐"), ids) == ["coke", "pepsi"])
            // A phrase doesn't run from one field into the next.
            #expect(try await Self.found(storage, Self.text("history 可口"), ids).isEmpty)
        }
    }

    @Test(arguments: engines)
    func joinsMatchesAndConditions(engine: Engine) async throws {
        try await Self.withCorpus(engine) { (storage: any StorageEngine, ids: [String: String]) async throws in
            let cola = Self.text("cola")
            #expect(try await Self.found(storage, .and([cola, .not(Self.text("pepsi"))]), ids) == ["coke"])
            #expect(try await Self.found(storage, .or([Self.text("swift"), Self.text("北京")]), ids) == ["swift", "beijing"])
            #expect(try await Self.found(storage, .not(cola), ids) == ["swift", "fox", "beijing", "note"])
            #expect(try await Self.found(storage, .and([cola, .condition(.compare(key: "n", .greater, 1))]), ids) == ["pepsi"])
            #expect(
                try await Self.found(storage, .or([cola, .condition(.compare(key: "n", .greaterOrEqual, 5))]), ids)
                    == ["coke", "pepsi", "beijing", "note"])
            #expect(
                try await Self.found(storage, .and([.not(cola), .condition(.exists(key: "note", false))]), ids)
                    == ["swift", "fox", "beijing"])
            #expect(try await Self.found(storage, .not(.everything), ids).isEmpty)
            #expect(try await Self.found(storage, .and([]), ids) == Set(Self.corpus.keys))
            #expect(try await Self.found(storage, .or([]), ids).isEmpty)
            #expect(
                try await Self.found(storage, .not(.and([.not(cola), .not(Self.text("北京"))])), ids) == ["coke", "pepsi", "beijing"])
        }
    }

    /// The caller's restriction (its ACL view) takes rows out of the ids and of the hits alike.
    @Test(arguments: engines)
    func restrictionFiltersIdsAndHits(engine: Engine) async throws {
        let place = Place(engine: engine)
        defer { place.remove() }
        try await place.with { storage in
            var ids: [String: String] = [:]
            for (name, reader) in [("open", "*"), ("alices", "alice"), ("bobs", "bob")] {
                let created = try await storage.create(
                    "Secret",
                    changes: ObjectChanges(fields: [
                        "text": .set("机密文件 secret file"), "ACL": .set([reader: ["read": true, "write": true]]),
                    ]))
                ids[name] = created.objectId
            }
            try await storage.setSearch("Secret", to: SearchSettings(className: "Secret", fields: ["text"]))
            let query = Self.text("机密")
            for (identities, expected) in [(["*"], ["open"]), (["*", "alice"], ["open", "alices"]), (["bob"], ["bobs"])] {
                let restriction = QueryPredicate.readableBy(identities.map { Identity($0) })
                for order in [SearchOrder.relevance, .keys([SortKey(key: "createdAt", descending: true)])] {
                    let matches = try await storage.search(
                        SearchPlan(className: "Secret", expression: query, restriction: restriction, order: order, window: 10))
                    #expect(Set(matches.ids) == Set(expected.map { ids[$0]! }))
                    #expect(matches.hits == expected.count)
                }
            }
            let all = try await Self.found(storage, query, ids, restriction: nil, className: "Secret")
            #expect(all == ["open", "alices", "bobs"])
        }
    }

    /// Every write path keeps the index current: create (grouped creates too), update, delete,
    /// the multi-object delete and an import.
    @Test(arguments: engines)
    func indexFollowsEveryWrite(engine: Engine) async throws {
        try await Self.withCorpus(engine) { (storage: any StorageEngine, ids: [String: String]) async throws in
            var ids = ids
            _ = try await storage.update(
                "Article", id: ids["coke"]!, changes: ObjectChanges(fields: ["body": .set("雪碧 sprite")]), condition: nil,
                check: nil)
            #expect(try await Self.found(storage, Self.text("可乐"), ids) == ["pepsi"])
            #expect(try await Self.found(storage, Self.text("雪碧"), ids) == ["coke"])
            // A write that leaves the indexed fields alone leaves the index as it was.
            _ = try await storage.update(
                "Article", id: ids["coke"]!, changes: ObjectChanges(fields: ["n": .increment(1)]), condition: nil, check: nil)
            #expect(try await Self.found(storage, Self.text("sprite"), ids) == ["coke"])
            // Unsetting every indexed field leaves nothing to find.
            _ = try await storage.update(
                "Article", id: ids["coke"]!, changes: ObjectChanges(fields: ["body": .delete, "title": .delete]),
                condition: nil, check: nil)
            #expect(try await Self.found(storage, Self.text("sprite"), ids).isEmpty)
            #expect(try await Self.found(storage, Self.text("history"), ids).isEmpty)

            try await storage.delete("Article", id: ids["pepsi"]!, condition: nil, check: nil)
            #expect(try await Self.found(storage, Self.text("可乐"), ids).isEmpty)
            let deleted = try await storage.delete("Article", ids: [ids["fox"]!, ids["swift"]!], condition: nil)
            #expect(deleted.count == 2)
            #expect(try await Self.found(storage, Self.text("brown"), ids).isEmpty)

            let imported = StoredObject(
                className: "Article", objectId: "imported0001", createdAt: "2024-01-01T00:00:00.000Z",
                updatedAt: "2024-01-01T00:00:00.000Z", fields: ["title": "导入的文章 imported"])
            #expect(try await storage.insertExported("Article", objects: [imported], fieldTypes: [:], relations: []) == 1)
            // The same object again is skipped, and not indexed twice.
            #expect(try await storage.insertExported("Article", objects: [imported], fieldTypes: [:], relations: []) == 0)
            ids["imported"] = "imported0001"
            let importedMatches = try await storage.search(
                SearchPlan(className: "Article", expression: Self.text("导入"), restriction: nil, order: .relevance, window: 10))
            #expect(importedMatches == SearchMatches(ids: ["imported0001"], hits: 1))

            // Creates at once are written in groups: each is indexed.
            let created = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try await storage.create(
                            "Article", changes: ObjectChanges(fields: ["title": .set(.string("并发 concurrent \(index)"))])
                        ).objectId
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            let concurrent = try await storage.search(
                SearchPlan(className: "Article", expression: Self.text("并发"), restriction: nil, order: .relevance, window: 100))
            #expect(Set(concurrent.ids) == created)
            #expect(concurrent.hits == 40)
        }
    }

    @Test(arguments: engines)
    func setSearchBuildsChangesAndTurnsOff(engine: Engine) async throws {
        try await Self.withCorpus(engine) { (storage: any StorageEngine, ids: [String: String]) async throws in
            #expect(try await storage.searchSettings() == [SearchSettings(className: "Article", fields: ["title", "body"])])
            try await storage.setSearch("Article", to: SearchSettings(className: "Article", fields: ["note"]))
            #expect(try await Self.found(storage, Self.text("可乐"), ids) == ["note"])
            #expect(try await Self.found(storage, Self.text("history"), ids).isEmpty)
            try await storage.setSearch("Article", to: nil)
            #expect(try await storage.searchSettings().isEmpty)
            await #expect(throws: DataAPIError.self) {
                try await storage.search(
                    SearchPlan(className: "Article", expression: .everything, restriction: nil, order: .relevance, window: 10))
            }
            // Off, writes go on without an index; on again, it holds them.
            _ = try await storage.create("Article", changes: ObjectChanges(fields: ["title": .set("later 后来")]))
            try await storage.setSearch("Article", to: nil)
            try await storage.setSearch("Article", to: SearchSettings(className: "Article", fields: ["title"]))
            #expect(try await Self.found(storage, Self.text("后来"), ids).count == 1)
            // A class that doesn't exist yet can be indexed before its first object.
            try await storage.setSearch("Fresh", to: SearchSettings(className: "Fresh", fields: ["title"]))
            _ = try await storage.create("Fresh", changes: ObjectChanges(fields: ["title": .set("新的")]))
            #expect(try await Self.found(storage, Self.text("新的"), [:], className: "Fresh").count == 1)
        }
    }

    @Test(arguments: engines)
    func refusesSettingsPastTheLimits(engine: Engine) async throws {
        let place = Place(engine: engine)
        defer { place.remove() }
        try await place.with { storage in
            let code = { (settings: SearchSettings) async -> Int? in await Self.code(of: settings, in: storage) }
            let tooMany = (0...SearchSettings.maxFields).map { "f\($0)" }
            #expect(await code(SearchSettings(className: "A", fields: tooMany)) == 1)
            #expect(await code(SearchSettings(className: "A", fields: [])) == 1)
            #expect(await code(SearchSettings(className: "A", fields: ["a.b"])) == 105)
            #expect(await code(SearchSettings(className: "A", fields: ["objectId"])) == 105)
            #expect(await code(SearchSettings(className: "A", fields: ["ACL"])) == 105)
            #expect(await code(SearchSettings(className: "_ClassSettings", fields: ["a"])) == 119)
            #expect(await code(SearchSettings(className: "bad-name", fields: ["a"])) == 103)
            for index in 0..<SearchSettings.maxClasses {
                #expect(await code(SearchSettings(className: "C\(index)", fields: ["a"])) == nil)
            }
            #expect(await code(SearchSettings(className: "Eleventh", fields: ["a"])) == 1)
            // Changing the fields of a class already on is not one more class.
            #expect(await code(SearchSettings(className: "C0", fields: ["b"])) == nil)
            let recorded = try await storage.searchSettings()
            #expect(recorded.count == SearchSettings.maxClasses)
            let expressions: [SearchExpression] = [
                (0..<40).reduce(SearchExpression.everything) { inner, _ in .not(inner) },
                .or((0...SearchLimits.maxNodes).map { _ in Self.text("a") }),
            ]
            for expression in expressions {
                await #expect(throws: DataAPIError.self) {
                    try await storage.search(
                        SearchPlan(className: "C0", expression: expression, restriction: nil, order: .relevance, window: 10))
                }
            }
        }
    }

    /// The code `setSearch` refuses settings with; nil when it takes them.
    static func code(of settings: SearchSettings, in storage: any StorageEngine) async -> Int? {
        do {
            try await storage.setSearch(settings.className, to: settings)
            return nil
        } catch let error as DataAPIError {
            return error.code.rawValue
        } catch {
            return -1
        }
    }

    /// Tokens are data, never query syntax: what FTS5 or tsquery would read as an operator
    /// finds nothing (no analyzer token holds it), and no error.
    @Test(arguments: engines)
    func tokensCannotChangeTheQuery(engine: Engine) async throws {
        try await Self.withCorpus(engine) { (storage: any StorageEngine, ids: [String: String]) async throws in
            let hostile = [
                "\"", "NEAR(", "*", "cola OR pepsi", "{c0}:", "c0:cola", "cola\"", "^", "(", "AND", "-", "'", "!", "&", "|",
                ":*", "cola:*", "",
            ]
            for token in hostile {
                for isPrefix in [false, true] {
                    let match = SearchExpression.text(SearchMatch(tokens: [token], isPrefix: isPrefix))
                    #expect(try await Self.found(storage, match, ids).isEmpty, "\(token)")
                    #expect(try await Self.found(storage, .and([Self.text("cola"), match]), ids).isEmpty, "\(token)")
                    #expect(try await Self.found(storage, .or([Self.text("北京"), match]), ids) == ["beijing"], "\(token)")
                }
            }
            // The same words through the analyzer are plain words.
            #expect(try await Self.found(storage, Self.text("cola OR fox"), ids).isEmpty)
            #expect(try await Self.found(storage, Self.text("\"cola\""), ids) == ["coke", "pepsi"])
        }
    }

    @Test(arguments: engines)
    func ordersByRelevanceOrKeysWithinTheWindow(engine: Engine) async throws {
        let place = Place(engine: engine)
        defer { place.remove() }
        try await place.with { storage in
            var ids: [Int: String] = [:]
            for n in 0..<12 {
                // Document n mentions "fox" n + 1 times among the same number of words.
                let words = Array(repeating: "fox", count: n + 1) + Array(repeating: "dog", count: 12 - n)
                let created = try await storage.create(
                    "Ranked", changes: ObjectChanges(fields: ["text": .set(.string(words.joined(separator: " "))), "n": .set(.int(Int64(n % 4)))]))
                ids[n] = created.objectId
            }
            try await storage.setSearch("Ranked", to: SearchSettings(className: "Ranked", fields: ["text"]))
            func plan(_ order: SearchOrder, window: Int) -> SearchPlan {
                SearchPlan(className: "Ranked", expression: Self.text("fox"), restriction: nil, order: order, window: window)
            }
            let best = try await storage.search(plan(.relevance, window: 3))
            #expect(best == SearchMatches(ids: [ids[11]!, ids[10]!, ids[9]!], hits: 12))
            let worst = try await storage.search(plan(.keys([SortKey(key: "_score", descending: false)]), window: 2))
            #expect(worst == SearchMatches(ids: [ids[0]!, ids[1]!], hits: 12))
            // By a field, then the best match, then objectId.
            let keyed = try await storage.search(
                plan(.keys([SortKey(key: "n", descending: true), SortKey(key: "_score", descending: true)]), window: 100))
            let expected = (0..<12).sorted { ($0 % 4, $0) > ($1 % 4, $1) }.map { ids[$0]! }
            #expect(keyed == SearchMatches(ids: expected, hits: 12))
            let none = try await storage.search(plan(.relevance, window: 0))
            #expect(none == SearchMatches(ids: [], hits: 12))
            // Ties fall back to objectId.
            let tied = try await storage.search(
                SearchPlan(className: "Ranked", expression: .everything, restriction: nil, order: .relevance, window: 100))
            #expect(tied.ids == ids.values.sorted())
        }
    }

    /// The index is the engine's: reopened, the engine finds its settings and keeps indexing.
    @Test(arguments: engines)
    func reopenedEngineKeepsIndexing(engine: Engine) async throws {
        let place = Place(engine: engine)
        defer { place.remove() }
        let ids = try await place.with { storage in try await Self.filled(storage) }
        try await place.with { storage in
            #expect(try await storage.searchSettings().map(\.className) == ["Article"])
            let created = try await storage.create("Article", changes: ObjectChanges(fields: ["title": .set("重新打开")]))
            var all = ids
            all["reopened"] = created.objectId
            #expect(try await Self.found(storage, Self.text("打开"), all) == ["reopened"])
            #expect(try await Self.found(storage, Self.text("可乐"), all) == ["coke", "pepsi"])
        }
    }
}
