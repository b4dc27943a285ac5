import JSON

/// The text PostgreSQL's full-text search is given: `tsvector` and `tsquery` literals written
/// here, in Swift, from `SearchAnalyzer`'s tokens, and cast by the database (`?::tsvector`,
/// `?::tsquery`) without a text search configuration, so PostgreSQL neither splits, stems nor
/// folds them: the analyzer is the one both engines share.
///
/// Every lexeme names its field: `title:word` for a positional token (a word or a CJK pair, at
/// its position in the field, from 1), `title#可` for a CJK unigram (no position: it is only
/// ever matched alone). A lexeme per field rather than a column per field: one GIN index serves
/// a match in any field and in one field alike, the set of fields changes without a change of
/// table, and positions start at 1 in each field, so a phrase never runs from one field into the
/// next. A match in any field is the OR of the match in each indexed field. Field names are
/// letters, digits and `_`, and tokens letters, digits and CJK characters, so neither separator
/// can occur inside a part; the literals quote and escape every lexeme all the same.
enum PostgresSearchText {
    /// The highest position PostgreSQL keeps (a later token is stored there too, so a phrase
    /// past it can't be told from its words apart).
    static let maxPosition = 16_383
    /// The most positions PostgreSQL keeps per lexeme.
    static let maxPositionsPerLexeme = 256
    /// The bytes of lexemes and positions one document's vector holds at most: PostgreSQL
    /// refuses a `tsvector` past 1 MiB, which a 128 KiB document of distinct words under a long
    /// field name could reach. Lexemes past it are left out of the index (and documented).
    static let maxVectorBytes = 1_000_000

    /// The lexeme of a positional token of a field.
    static func lexeme(field: String, token: String) -> String { field + ":" + token }

    /// The lexeme of a CJK character of a field.
    static func unigram(field: String, character: String) -> String { field + "#" + character }

    /// A lexeme quoted for a `tsvector` or `tsquery` literal: in single quotes, a quote doubled
    /// and a backslash escaped, so no character of it is read as syntax.
    static func quoted(_ lexeme: String) -> String {
        var quoted = "'"
        quoted.reserveCapacity(lexeme.utf8.count + 2)
        for character in lexeme {
            switch character {
            case "'": quoted += "''"
            case "\\": quoted += "\\\\"
            default: quoted.append(character)
            }
        }
        quoted += "'"
        return quoted
    }

    /// The `tsvector` literal of an object's indexed fields.
    static func vector(of fields: [String: JSONValue], indexed: [String]) -> String {
        var order: [String] = []
        var positions: [String: [Int]] = [:]
        var bytes = 0
        for field in indexed {
            guard let value = fields[field] else { continue }
            let text = SearchAnalyzer.analyze(value)
            for (index, token) in text.tokens.enumerated() {
                let lexeme = lexeme(field: field, token: token)
                let position = min(index + 1, maxPosition)
                if var known = positions[lexeme] {
                    guard known.count < maxPositionsPerLexeme, known.last != position, bytes + 2 <= maxVectorBytes else {
                        continue
                    }
                    known.append(position)
                    positions[lexeme] = known
                    bytes += 2
                } else {
                    // The lexeme, its alignment and count, one position.
                    let cost = lexeme.utf8.count + 6
                    guard bytes + cost <= maxVectorBytes else { continue }
                    order.append(lexeme)
                    positions[lexeme] = [position]
                    bytes += cost
                }
            }
            for character in text.unigrams {
                let lexeme = unigram(field: field, character: character)
                guard positions[lexeme] == nil, bytes + lexeme.utf8.count <= maxVectorBytes else { continue }
                order.append(lexeme)
                positions[lexeme] = []
                bytes += lexeme.utf8.count
            }
        }
        var literal = ""
        for lexeme in order {
            if !literal.isEmpty { literal += " " }
            literal += quoted(lexeme)
            let held = positions[lexeme]!
            if !held.isEmpty { literal += ":" + held.map(String.init).joined(separator: ",") }
        }
        return literal
    }

    /// The `tsquery` literal of a text match: its tokens adjacent (`<->`) in one field, or in
    /// any of `indexed` (an OR); nil when it can match nothing (no token, no field).
    static func query(_ match: SearchMatch, indexed: [String]) -> String? {
        guard !match.tokens.isEmpty else { return nil }
        let fields = match.field.map { [$0] } ?? indexed
        let alternatives = fields.map { field -> String in
            if match.isUnigram {
                // One character: a prefix of it is itself.
                return quoted(unigram(field: field, character: match.tokens[0]))
            }
            var phrase = ""
            for (index, token) in match.tokens.enumerated() {
                if index > 0 { phrase += " <-> " }
                phrase += quoted(lexeme(field: field, token: token))
                if match.isPrefix, index == match.tokens.count - 1 { phrase += ":*" }
            }
            return phrase
        }
        switch alternatives.count {
        case 0: return nil
        case 1: return alternatives[0]
        default: return alternatives.map { "(\($0))" }.joined(separator: " | ")
        }
    }
}
