import Foundation
public import JSON

/// Turns text into the tokens the search index holds and queries look up: the one analyzer of
/// both engines, so a query finds what was indexed whichever engine holds it.
///
/// Text is folded (NFKC, lower case). Letters and digits outside CJK scripts make words. A run
/// of CJK characters (Han, kana, Hangul), which has no spaces between words, makes overlapping
/// pairs of characters (`可口可乐` → `可口 口可 可乐`), as Lucene's CJK analyzer does: any word
/// of two characters or more is then a phrase of pairs, with no dictionary to keep current. A
/// run of one character is a token of its own. Every CJK character is also kept as a unigram,
/// apart from the positions, so a one-character query finds it.
public enum SearchAnalyzer {
    /// The longest token kept, in Unicode scalars: a longer word is cut there (the same cut
    /// on both sides, so it still matches itself).
    public static let maxTokenLength = 64

    /// The tokens of one field's value: its strings, nested ones included, in order. Numbers,
    /// booleans and other values hold no text.
    public static func analyze(_ value: JSONValue) -> AnalyzedText {
        var text = AnalyzedText()
        append(value, to: &text)
        return text
    }

    /// The tokens of a text.
    public static func analyze(_ text: String) -> AnalyzedText {
        var analyzed = AnalyzedText()
        append(text, to: &analyzed)
        return analyzed
    }

    /// The match a query word or phrase makes, limited to `field` when given; nil when the
    /// text holds no token (punctuation only).
    public static func match(_ text: String, field: String? = nil, isPrefix: Bool = false) -> SearchMatch? {
        let analyzed = analyze(text)
        if analyzed.tokens.count == 1, analyzed.unigrams.count == 1, analyzed.tokens[0] == analyzed.unigrams[0] {
            return SearchMatch(field: field, tokens: analyzed.unigrams, isPrefix: isPrefix, isUnigram: true)
        }
        guard !analyzed.tokens.isEmpty else { return nil }
        return SearchMatch(field: field, tokens: analyzed.tokens, isPrefix: isPrefix)
    }

    /// Whether a character belongs to a script written without spaces between words.
    public static func isCJK(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x3040...0x30FF, 0x31F0...0x31FF, 0xAC00...0xD7AF, 0x1100...0x11FF, 0x3130...0x318F: true
        default: scalar.properties.isIdeographic
        }
    }

    private static func append(_ value: JSONValue, to text: inout AnalyzedText) {
        switch value {
        case .string(let string): append(string, to: &text)
        case .array(let items): for item in items { append(item, to: &text) }
        case .object(let members):
            // Keys sorted: the same object always makes the same tokens.
            for key in members.keys.sorted() where !key.hasPrefix("__") { append(members[key]!, to: &text) }
        default: break
        }
    }

    private static func append(_ string: String, to text: inout AnalyzedText) {
        let folded = string.precomposedStringWithCompatibilityMapping.lowercased()
        var word = String.UnicodeScalarView()
        var run: [Unicode.Scalar] = []
        func endWord() {
            if !word.isEmpty { text.tokens.append(String(String.UnicodeScalarView(word.prefix(maxTokenLength)))) }
            word.removeAll()
        }
        func endRun() {
            if run.count == 1 {
                text.tokens.append(String(Character(run[0])))
            } else {
                for index in run.indices.dropLast() {
                    var pair = String.UnicodeScalarView()
                    pair.append(run[index])
                    pair.append(run[index + 1])
                    text.tokens.append(String(pair))
                }
            }
            text.unigrams.append(contentsOf: run.map { String(Character($0)) })
            run.removeAll()
        }
        for scalar in folded.unicodeScalars {
            if isCJK(scalar) {
                endWord()
                run.append(scalar)
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                if !run.isEmpty { endRun() }
                word.append(scalar)
            } else {
                endWord()
                if !run.isEmpty { endRun() }
            }
        }
        endWord()
        if !run.isEmpty { endRun() }
    }
}

/// What the analyzer makes of a text: positional tokens (words and CJK pairs, in order) and
/// the CJK characters it holds.
public struct AnalyzedText: Sendable, Hashable {
    /// Words and CJK character pairs, in the order they occur (phrases match consecutive ones).
    public var tokens: [String] = []
    /// Each CJK character, in order.
    public var unigrams: [String] = []

    /// Empty.
    public init() {}
}
