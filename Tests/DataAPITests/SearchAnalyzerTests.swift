import DataAPI
import JSON
import Testing

/// The one analyzer both engines index with and queries match through, and the in-memory
/// evaluator the engines are tested against.
@Suite struct SearchAnalyzerTests {
    @Test func latinWordsAreFoldedAndSplitOnEverythingButLettersAndDigits() {
        let text = SearchAnalyzer.analyze("Hello, WORLD! Ｆｕｌｌ-width café 42")
        #expect(text.tokens == ["hello", "world", "full", "width", "café", "42"])
        #expect(text.unigrams.isEmpty)
    }

    @Test func cjkRunsBecomeOverlappingPairsAndUnigrams() {
        let text = SearchAnalyzer.analyze("我爱可口可乐 ok 中")
        #expect(text.tokens == ["我爱", "爱可", "可口", "口可", "可乐", "ok", "中"])
        #expect(text.unigrams == ["我", "爱", "可", "口", "可", "乐", "中"])
    }

    @Test func nestedStringsAreIndexedAndOtherValuesHoldNoText() {
        let value = JSONValue.object(["b": .string("beta"), "a": .array([.string("alpha"), .int(3), .bool(true)])])
        #expect(SearchAnalyzer.analyze(value).tokens == ["alpha", "beta"])
        #expect(SearchAnalyzer.analyze(.double(1.5)).tokens.isEmpty)
    }

    @Test func overlongWordsAreCutTheSameOnBothSides() {
        let word = String(repeating: "x", count: 100)
        #expect(SearchAnalyzer.analyze(word).tokens == [String(repeating: "x", count: SearchAnalyzer.maxTokenLength)])
        #expect(SearchAnalyzer.match(word)?.tokens == SearchAnalyzer.analyze(word).tokens)
    }

    @Test func queryWordsMatchAsPhrasesOfTokensAndSingleCharactersAsUnigrams() {
        #expect(SearchAnalyzer.match("可口可乐") == SearchMatch(tokens: ["可口", "口可", "可乐"]))
        #expect(SearchAnalyzer.match("乐", field: "title") == SearchMatch(field: "title", tokens: ["乐"], isUnigram: true))
        #expect(SearchAnalyzer.match("!!!") == nil)
    }

    @Test func theEvaluatorMatchesPhrasesPrefixesUnigramsAndFields() {
        let settings = SearchSettings(className: "Post", fields: ["title", "body"])
        let evaluator = SearchEvaluator(settings: settings, fields: ["title": .string, "body": .string, "stars": .number])
        let post = StoredObject(
            className: "Post", objectId: "a", createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z",
            fields: ["title": .string("Lady Gaga 可口可乐"), "body": .string("quick brown fox"), "secret": .string("zebra"), "stars": .int(4)])
        func holds(_ expression: SearchExpression) -> Bool { evaluator.matches(post, expression) }
        #expect(holds(.text(SearchAnalyzer.match("lady gaga")!)))
        #expect(!holds(.text(SearchAnalyzer.match("gaga lady")!)))
        #expect(holds(.text(SearchAnalyzer.match("可乐")!)))
        #expect(holds(.text(SearchAnalyzer.match("乐")!)))
        #expect(!holds(.text(SearchAnalyzer.match("乐可")!)))
        #expect(holds(.text(SearchAnalyzer.match("bro", isPrefix: true)!)))
        #expect(!holds(.text(SearchAnalyzer.match("bro")!)))
        #expect(holds(.text(SearchAnalyzer.match("fox", field: "body")!)))
        #expect(!holds(.text(SearchAnalyzer.match("fox", field: "title")!)))
        #expect(!holds(.text(SearchAnalyzer.match("zebra")!)), "a field search isn't on for is not indexed")
        #expect(holds(.and([.text(SearchAnalyzer.match("fox")!), .not(.text(SearchAnalyzer.match("cat")!))])))
        #expect(holds(.or([.text(SearchAnalyzer.match("cat")!), .condition(.compare(key: "stars", .greater, .int(3)))])))
        #expect(holds(.everything))
    }
}
