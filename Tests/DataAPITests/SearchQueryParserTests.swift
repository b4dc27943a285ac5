import JSON
import Testing

@testable import DataAPI

@Suite("Search query parsing")
struct SearchQueryParserTests {
    let fields: Set<String> = ["title", "body", "book"]

    func parse(_ q: String) throws -> SearchExpression {
        try SearchQueryParser.parse(q, className: "Post", indexedFields: fields)
    }

    func text(_ tokens: [String], field: String? = nil, prefix: Bool = false) -> SearchExpression {
        .text(SearchMatch(field: field, tokens: tokens, isPrefix: prefix))
    }

    func condition(_ json: JSONValue) throws -> SearchExpression {
        .condition(try QueryPredicate(where: json))
    }

    @Test("A word, a Chinese word (its character pairs) and a single Chinese character")
    func terms() throws {
        #expect(try parse("Dennis") == text(["dennis"]))
        #expect(try parse("可口可乐") == text(["可口", "口可", "可乐"]))
        #expect(try parse("乐") == .text(SearchMatch(tokens: ["乐"], isUnigram: true)))
        #expect(try parse("hello-world") == text(["hello", "world"]))
    }

    @Test("Several terms are alternatives (Elasticsearch's default operator is OR)")
    func defaultOperator() throws {
        #expect(try parse("可口 可乐") == .or([text(["可口"]), text(["可乐"])]))
        #expect(try parse("a b c") == .or([text(["a"]), text(["b"]), text(["c"])]))
    }

    @Test("Phrases, fields, field groups and nested field paths")
    func phrasesAndFields() throws {
        #expect(try parse(#""lady gaga""#) == text(["lady", "gaga"]))
        #expect(try parse(#"title:"lady gaga""#) == text(["lady", "gaga"], field: "title"))
        #expect(try parse("title:逃跑计划") == text(["逃跑", "跑计", "计划"], field: "title"))
        #expect(try parse("title:(a OR b)") == .or([text(["a"], field: "title"), text(["b"], field: "title")]))
        #expect(try parse("book.name:clojure") == text(["clojure"], field: "book"))
        #expect(try parse("book.*:clojure") == text(["clojure"], field: "book"))
    }

    @Test("AND, OR, NOT, &&, ||, !, + and - with AND binding tighter than OR")
    func booleans() throws {
        let (a, b, c) = (text(["a"]), text(["b"]), text(["c"]))
        #expect(try parse("a AND b") == .and([a, b]))
        #expect(try parse("a && b") == .and([a, b]))
        #expect(try parse("a OR b") == .or([a, b]))
        #expect(try parse("a || b") == .or([a, b]))
        #expect(try parse("a AND b OR c") == .or([.and([a, b]), c]))
        #expect(try parse("a OR b AND c") == .or([a, .and([b, c])]))
        #expect(try parse("(a OR b) AND c") == .and([.or([a, b]), c]))
        #expect(try parse("a AND NOT b") == .and([a, .not(b)]))
        #expect(try parse("a !b") == .and([a, .not(b)]))
        #expect(try parse("NOT b") == .not(b))
        #expect(try parse("+a b") == a)
        #expect(try parse("+a +b -c") == .and([a, b, .not(c)]))
        #expect(try parse("a -b") == .and([a, .not(b)]))
        #expect(try parse("((a))") == a)
    }

    @Test("Prefixes, everything, exists and missing")
    func prefixesAndStars() throws {
        #expect(try parse("bro*") == text(["bro"], prefix: true))
        #expect(try parse("title:bro*") == text(["bro"], field: "title", prefix: true))
        #expect(try parse("*") == .everything)
        #expect(try parse("title:*") == condition(["title": ["$exists": true]]))
        #expect(try parse("_exists_:title") == condition(["title": ["$exists": true]]))
        #expect(try parse("_missing_:score") == condition(["score": ["$exists": false]]))
    }

    @Test("Ranges and comparisons are conditions on any field")
    func ranges() throws {
        #expect(try parse("count:[1 TO 5]") == condition(["count": ["$gte": 1, "$lte": 5]]))
        #expect(try parse("count:{1 TO 5}") == condition(["count": ["$gt": 1, "$lt": 5]]))
        #expect(try parse("count:[1 TO 5}") == condition(["count": ["$gte": 1, "$lt": 5]]))
        #expect(try parse("count:[* TO 5]") == condition(["count": ["$lte": 5]]))
        #expect(try parse("count:[-5 TO 2.5]") == condition(["count": ["$gte": -5, "$lte": 2.5]]))
        #expect(try parse("count:[* TO *]") == condition(["count": ["$exists": true]]))
        #expect(try parse("age:>10") == condition(["age": ["$gt": 10]]))
        #expect(try parse("age:>=10") == condition(["age": ["$gte": 10]]))
        #expect(try parse("age:<10") == condition(["age": ["$lt": 10]]))
        #expect(try parse("age:<=10") == condition(["age": ["$lte": 10]]))
        #expect(try parse("name:[a TO m]") == condition(["name": ["$gte": "a", "$lte": "m"]]))
        #expect(try parse("count:5") == condition(["count": 5]))
        #expect(try parse("done:true") == condition(["done": true]))
    }

    @Test("objectId, createdAt and .iso dates")
    func typedFields() throws {
        #expect(try parse("objectId:abc123") == condition(["objectId": "abc123"]))
        #expect(try parse("objectId:(a OR b)") == .or([condition(["objectId": "a"]), condition(["objectId": "b"])]))
        let day: JSONValue = ["__type": "Date", "iso": "2015-07-30T00:00:00.000Z"]
        let later: JSONValue = ["__type": "Date", "iso": "2015-08-15T00:00:00.000Z"]
        #expect(
            try parse(#"createdAt:["2015-07-30T00:00:00.000Z" TO "2015-08-15T00:00:00.000Z"]"#)
                == condition(["createdAt": ["$gte": day, "$lte": later]]))
        #expect(try parse("birthday.iso:[2015-07-30 TO 2015-08-15]") == condition(["birthday": ["$gte": day, "$lte": later]]))
        #expect(try parse("updatedAt:>2015-07-30") == condition(["updatedAt": ["$gt": day]]))
        expectDataAPIError(102) { _ = try parse("createdAt:>yesterday") }
    }

    @Test("Escapes make reserved characters text")
    func escapes() throws {
        #expect(try parse(#"a\:b"#) == text(["a", "b"]))
        #expect(try parse(#"c\+\+"#) == text(["c"]))
        #expect(try parse(#"what\?"#) == text(["what"]))
        #expect(try parse(#"\*"#) == .or([]))
        #expect(try parse(#""say \"hi\"""#) == text(["say", "hi"]))
        #expect(try parse(#"AND\ x"#) == text(["and", "x"]))
        #expect(try parse("and") == text(["and"]))
    }

    @Test(
        "Regular expressions, fuzzy, boosts and ? or inner wildcards are refused with 102",
        arguments: [
            "name:/joh?n/", "quikc~", "quick~2", #""a b"~3"#, "a^2", "qu?ck", "*ick", "q*ck", "title:bro*n",
        ])
    func refusedFeatures(q: String) {
        let error = expectDataAPIError(102) { _ = try parse(q) }
        #expect(error?.message.contains("doesn't support") == true)
    }

    @Test(
        "A text match on a field search isn't on for is refused; conditions on it are not",
        arguments: ["secret:abc", #"secret:"a b""#, "secret:ab*", "secret:(a OR b)"])
    func unindexedField(q: String) {
        let error = expectDataAPIError(102) { _ = try parse(q) }
        #expect(error?.message.contains("Search isn't on for the field secret") == true)
    }

    @Test(
        "Malformed queries are 102, with a message",
        arguments: [
            "", "   ", "(", ")", "a)", "(a", "()", "a AND", "OR a", "AND", "a OR OR b", #""open"#, "title:", "title:[1 TO",
            "title:[1 5]", "count:>", ":a", "[1 TO 2]", ">5", "+", "NOT NOT a", "_exists_:", "_exists_:\"x\"", "a:b:c",
            #"a\"#, "bad name:x", "1abc:x",
        ])
    func malformed(q: String) {
        expectDataAPIError(102) { _ = try parse(q) }
    }

    @Test("Hostile input: long, deep or wide queries are refused quickly, never crash")
    func bounds() throws {
        expectDataAPIError(102) { _ = try parse(String(repeating: "a ", count: SearchQueryParser.maxLength)) }
        let deep = String(repeating: "(", count: 10_000) + "a" + String(repeating: ")", count: 10_000)
        expectDataAPIError(102) { _ = try parse(String(deep.utf8.prefix(4000))!) }
        let depth = SearchQueryParser.maxDepth
        let nested = String(repeating: "(", count: depth + 1) + "a" + String(repeating: ")", count: depth + 1)
        let error = expectDataAPIError(102) { _ = try parse(nested) }
        #expect(error?.message.contains("nests too deeply") == true)
        let fine = String(repeating: "(", count: depth) + "a" + String(repeating: ")", count: depth)
        #expect(try parse(fine) == text(["a"]))
        let wide = (0...SearchQueryParser.maxClauses).map { "w\($0)" }.joined(separator: " ")
        let wideError = expectDataAPIError(102) { _ = try parse(wide) }
        #expect(wideError?.message.contains("too many clauses") == true)
        let manyNots = String(repeating: "! ", count: 1000) + "a"
        expectDataAPIError(102) { _ = try parse(manyNots) }
        let manyRanges = (0..<100).map { "n\($0):[1 TO 2]" }.joined(separator: " AND ")
        expectDataAPIError(102) { _ = try parse(manyRanges) }
        // Punctuation alone holds no token: it matches nothing rather than everything.
        expectDataAPIError(102) { _ = try parse("-- ,,, ..") }
        #expect(try parse(",,,") == .or([]))
        // A single very long word is cut by the analyzer, not refused.
        #expect(try parse(String(repeating: "x", count: 4000)) == text([String(repeating: "x", count: SearchAnalyzer.maxTokenLength)]))
    }
}
