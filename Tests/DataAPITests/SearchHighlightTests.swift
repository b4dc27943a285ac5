import JSON
import Testing

@testable import DataAPI

@Suite("Search highlights")
struct SearchHighlightTests {
    func highlight(_ q: String, _ object: [String: JSONValue], fields: [String] = ["title", "body"]) throws -> [String: [String]] {
        let expression = try SearchQueryParser.parse(q, className: "Post", indexedFields: ["title", "body"])
        return SearchHighlighter(expression).highlight(object, fields: fields)
    }

    @Test("Latin words match case-insensitively on word boundaries")
    func latinWords() throws {
        #expect(try highlight("dennis", ["title": "Dennis ZX"]) == ["title": ["<em>Dennis</em> ZX"]])
        #expect(try highlight("dennis", ["title": "Dennisson and DENNIS."]) == ["title": ["Dennisson and <em>DENNIS</em>."]])
        #expect(try highlight("den*", ["title": "Dennisson"]) == ["title": ["<em>Dennisson</em>"]])
        #expect(try highlight("zx", ["title": "Dennis ZX"], fields: ["body"]) == [:])
    }

    @Test("Chinese words match as runs of characters, single characters too")
    func chineseRuns() throws {
        #expect(try highlight("可乐", ["title": "我爱喝可口可乐"]) == ["title": ["我爱喝可口<em>可乐</em>"]])
        #expect(try highlight("可口可乐", ["title": "我爱喝可口可乐吗"]) == ["title": ["我爱喝<em>可口可乐</em>吗"]])
        #expect(try highlight("爱", ["title": "我爱喝可乐"]) == ["title": ["我<em>爱</em>喝可乐"]])
        #expect(try highlight("可乐 coke", ["body": "可乐 is Coke"]) == ["body": ["<em>可乐</em> is <em>Coke</em>"]])
    }

    @Test("Phrases match their words in order; a field match highlights only that field")
    func phrasesAndFields() throws {
        let object: [String: JSONValue] = ["title": "lady gaga", "body": "gaga lady, lady gaga"]
        #expect(try highlight(#""lady gaga""#, object) == ["title": ["<em>lady gaga</em>"], "body": ["gaga lady, <em>lady gaga</em>"]])
        #expect(try highlight(#"title:"lady gaga""#, object) == ["title": ["<em>lady gaga</em>"]])
        #expect(try highlight("NOT gaga", object) == [:])
    }

    @Test("Text is HTML-escaped around the marks")
    func escaped() throws {
        let result = try highlight("x", ["title": #"<script>alert("x")</script> & x 'q'"#])
        #expect(result == ["title": ["&lt;script&gt;alert(&quot;<em>x</em>&quot;)&lt;/script&gt; &amp; <em>x</em> &#39;q&#39;"]])
    }

    @Test("Long text gives bounded fragments around the matches; arrays and objects are searched")
    func fragments() throws {
        let filler = String(repeating: "lorem ipsum ", count: 30)
        let text = filler + "needle " + filler + "needle " + filler
        let result = try highlight("needle", ["body": .string(text)])
        let fragments = try #require(result["body"])
        #expect(fragments.count == 2)
        for fragment in fragments {
            #expect(fragment.contains("<em>needle</em>"))
            #expect(fragment.count <= SearchHighlighter.fragmentLength + 10)
        }
        let many = String(repeating: "needle " + filler, count: 20)
        #expect(try highlight("needle", ["body": .string(many)])["body"]?.count == SearchHighlighter.maxFragments)
        #expect(try highlight("tag", ["body": ["x", "a tag", ["k": "tag"]]]) == ["body": ["a <em>tag</em>", "<em>tag</em>"]])
        #expect(try highlight("n", ["body": 5]) == [:])
    }

    @Test("Hostile text: huge fields and many matches stay bounded")
    func hostile() throws {
        let huge = String(repeating: "a ", count: 500_000)
        let result = try highlight("a", ["body": .string(huge)])
        #expect(result["body"]?.count == SearchHighlighter.maxFragments)
        let cjk = String(repeating: "可", count: 200_000)
        #expect(try highlight("可可", ["body": .string(cjk)])["body"]?.count == 1)
    }

    /// Attack: a page of long texts and a query of many prefixes would hold a core outside any
    /// statement's budget; an answer's highlights share one budget of comparisons, and a text
    /// past what is left gets no fragments rather than the time.
    @Test func anAnswersHighlightsStopAtItsBudget() throws {
        let highlighter = SearchHighlighter(.text(try #require(SearchAnalyzer.match("coffee"))))
        let object: [String: JSONValue] = ["title": .string(Array(repeating: "tea coffee", count: 1000).joined(separator: " "))]
        var budget = 100
        #expect(highlighter.highlight(object, fields: ["title"], budget: &budget).isEmpty)
        #expect(budget == 0)
        budget = SearchHighlighter.answerBudget
        #expect(highlighter.highlight(object, fields: ["title"], budget: &budget)["title"]?.count == SearchHighlighter.maxFragments)
        #expect(budget == SearchHighlighter.answerBudget - 2000)
    }
}
