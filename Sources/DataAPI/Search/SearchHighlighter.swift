import Foundation
package import JSON

/// The highlighted fragments of a search result: pieces of an indexed field's text around each
/// match of the query's text parts, each match wrapped in `<em>…</em>`.
///
/// Matches are found the way the index finds them: the text is cut into the analyzer's tokens
/// (folded words; overlapping pairs of CJK characters), each remembering where in the original
/// text it stood, and a match is its tokens side by side (the last one a prefix for `bro*`). So
/// a Latin word matches case-insensitively on word boundaries and a Chinese word as a run of
/// characters, on both engines alike.
///
/// The text around the marks is HTML-escaped (`&`, `<`, `>`, `"`, `'`), unlike Elasticsearch's
/// default encoder, which LeanCloud used: fragments exist to be shown as HTML (that is what the
/// `<em>` is for), and unescaped they would let anyone who writes a searchable object put
/// markup and scripts into every page that shows a search for it.
package struct SearchHighlighter: Sendable {
    /// The most fragments per field (Elasticsearch's default, 5).
    package static let maxFragments = 5
    /// A fragment's length around its matches, in characters (Elasticsearch's default, 100).
    package static let fragmentLength = 100
    /// How much of a field's text is searched for matches, in characters.
    package static let maxTextLength = 20_000
    /// The comparisons one answer's highlights may make in all (a token of the text against a
    /// match of the query): a page of long texts and a query of many prefixes would otherwise
    /// hold a core for a minute outside any statement's budget. Past it the remaining results
    /// are answered without fragments.
    package static let answerBudget = 4_000_000

    /// The query's text matches (those not under a NOT).
    let matches: [SearchMatch]

    /// A highlighter for the text parts of a query.
    package init(_ expression: SearchExpression) {
        matches = expression.positiveMatches
    }

    /// The fragments of each of `fields` holding a match; fields without one are left out.
    package func highlight(_ object: [String: JSONValue], fields: [String]) -> [String: [String]] {
        var budget = Self.answerBudget
        return highlight(object, fields: fields, budget: &budget)
    }

    /// `highlight(_:fields:)` charged to an answer's `budget` of comparisons; a text whose
    /// matching would pass what is left gets no fragments.
    package func highlight(_ object: [String: JSONValue], fields: [String], budget: inout Int) -> [String: [String]] {
        var result: [String: [String]] = [:]
        for field in fields {
            guard let value = object[field] else { continue }
            let relevant = matches.filter { $0.field == nil || $0.field == field }
            guard !relevant.isEmpty else { continue }
            var fragments: [String] = []
            for text in Self.strings(in: value) where fragments.count < Self.maxFragments {
                fragments += Self.fragments(
                    of: text, matches: relevant, limit: Self.maxFragments - fragments.count, budget: &budget)
            }
            if !fragments.isEmpty { result[field] = fragments }
        }
        return result
    }

    /// The strings a value holds, nested ones in order (as the analyzer indexes them).
    static func strings(in value: JSONValue) -> [String] {
        switch value {
        case .string(let text): [text]
        case .array(let items): items.flatMap(strings(in:))
        case .object(let members): members.keys.sorted().filter { !$0.hasPrefix("__") }.flatMap { strings(in: members[$0]!) }
        default: []
        }
    }

    /// A token of the text and the characters it spans.
    struct Token {
        var text: String
        var start: Int
        var end: Int
    }

    /// The analyzer's tokens of `characters`, with their character ranges: a word is a run of
    /// letters and digits, a CJK run gives its overlapping pairs (or its one character).
    static func tokens(of characters: [Character]) -> (tokens: [Token], unigrams: [Token]) {
        var tokens: [Token] = []
        var unigrams: [Token] = []
        var word = ""
        var wordStart = 0
        var run: [(String, Int)] = []
        func endWord(at end: Int) {
            if !word.isEmpty { tokens.append(Token(text: String(word.unicodeScalars.prefix(SearchAnalyzer.maxTokenLength)), start: wordStart, end: end)) }
            word = ""
        }
        func endRun() {
            if run.count == 1 {
                tokens.append(Token(text: run[0].0, start: run[0].1, end: run[0].1 + 1))
            } else {
                for index in run.indices.dropLast() {
                    tokens.append(Token(text: run[index].0 + run[index + 1].0, start: run[index].1, end: run[index + 1].1 + 1))
                }
            }
            unigrams += run.map { Token(text: $0.0, start: $0.1, end: $0.1 + 1) }
            run.removeAll()
        }
        for (offset, character) in characters.enumerated() {
            let folded = String(character).precomposedStringWithCompatibilityMapping.lowercased()
            for scalar in folded.unicodeScalars {
                if SearchAnalyzer.isCJK(scalar) {
                    endWord(at: offset)
                    run.append((String(scalar), offset))
                } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                    if !run.isEmpty { endRun() }
                    if word.isEmpty { wordStart = offset }
                    word.unicodeScalars.append(scalar)
                } else {
                    endWord(at: offset)
                    if !run.isEmpty { endRun() }
                }
            }
        }
        endWord(at: characters.count)
        if !run.isEmpty { endRun() }
        return (tokens, unigrams)
    }

    /// The character ranges of the matches in the text, sorted, overlapping ones merged.
    static func ranges(in characters: [Character], matches: [SearchMatch], budget: inout Int) -> [Range<Int>] {
        let (tokens, unigrams) = tokens(of: characters)
        let cost = (tokens.count + unigrams.count) * matches.count
        guard cost <= budget else {
            budget = 0
            return []
        }
        budget -= cost
        var found: [Range<Int>] = []
        for match in matches where !match.tokens.isEmpty {
            if match.isUnigram {
                found += unigrams.filter { $0.text == match.tokens[0] }.map { $0.start..<$0.end }
                continue
            }
            let count = match.tokens.count
            guard tokens.count >= count else { continue }
            for start in 0...(tokens.count - count) {
                let fits = (0..<count).allSatisfy { offset in
                    let token = tokens[start + offset].text
                    let wanted = match.tokens[offset]
                    return match.isPrefix && offset == count - 1 ? token.hasPrefix(wanted) : token == wanted
                }
                if fits { found.append(tokens[start].start..<tokens[start + count - 1].end) }
            }
        }
        var merged: [Range<Int>] = []
        for range in found.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }

    /// Up to `limit` fragments of the text, each about `fragmentLength` characters starting a
    /// little before its first match and holding every match that starts inside it.
    static func fragments(of text: String, matches: [SearchMatch], limit: Int, budget: inout Int) -> [String] {
        guard budget > 0 else { return [] }
        let characters = Array(text.prefix(maxTextLength))
        let ranges = ranges(in: characters, matches: matches, budget: &budget)
        var fragments: [String] = []
        var next = 0
        while next < ranges.count, fragments.count < limit {
            let first = ranges[next]
            var start = characters.count <= fragmentLength ? 0 : max(0, first.lowerBound - fragmentLength / 5)
            // Begin at a word's start when one is near.
            if start > 0, let space = characters[start..<first.lowerBound].firstIndex(where: \.isWhitespace) {
                start = space + 1
            }
            // A long run of matches (a repeated character) is cut at twice the length.
            let hardEnd = min(characters.count, start + 2 * fragmentLength)
            var end = min(hardEnd, max(start + fragmentLength, first.upperBound))
            var fragment = ""
            var cursor = start
            while next < ranges.count, ranges[next].lowerBound < end {
                let range = ranges[next].lowerBound..<min(ranges[next].upperBound, hardEnd)
                end = max(end, range.upperBound)
                fragment += escaped(characters[cursor..<range.lowerBound])
                fragment += "<em>" + escaped(characters[range]) + "</em>"
                cursor = range.upperBound
                next += 1
            }
            fragment += escaped(characters[cursor..<end])
            fragments.append(fragment)
        }
        return fragments
    }

    private static func escaped(_ characters: ArraySlice<Character>) -> String {
        MessageTemplate.escapeHTML(String(characters))
    }
}

extension SearchExpression {
    /// The text matches a document matching this expression may hold (not those under a NOT).
    package var positiveMatches: [SearchMatch] {
        switch self {
        case .text(let match): [match]
        case .and(let parts), .or(let parts): parts.flatMap(\.positiveMatches)
        case .not, .condition, .everything: []
        }
    }

    /// Every condition in the expression, negated ones included.
    package var conditions: [QueryPredicate] {
        switch self {
        case .condition(let predicate): [predicate]
        case .and(let parts), .or(let parts): parts.flatMap(\.conditions)
        case .not(let part): part.conditions
        case .text, .everything: []
        }
    }
}
