/// One token of a search query (`q`), as `SearchQueryLexer` reads it.
enum SearchQueryToken: Sendable, Hashable {
    /// A word, unescaped; `isPrefix` when it ended in an unescaped `*` (not part of `text`).
    case word(String, isPrefix: Bool)
    /// A quoted phrase, unescaped.
    case phrase(String)
    /// `*` alone: every document (or, after `field:`, every one holding the field).
    case star
    /// `AND` or `&&`.
    case and
    /// `OR` or `||`.
    case or
    /// `NOT` or `!`.
    case not
    /// `+` before a clause: it must match.
    case plus
    /// `-` before a clause: it must not match.
    case minus
    /// `:` after a field name.
    case colon
    /// `(` and `)`.
    case open, close
    /// `[` or `{` opening a range: inclusive for `[`.
    case rangeOpen(inclusive: Bool)
    /// `]` or `}` closing a range: inclusive for `]`.
    case rangeClose(inclusive: Bool)
    /// `>`, `>=`, `<` or `<=` before a value.
    case comparison(String)
}

/// Splits a search query into tokens, refusing the parts of Elasticsearch's query-string syntax
/// this host doesn't offer (regular expressions, fuzzy and proximity `~`, boosts `^`, `?` and
/// inner `*` wildcards) with a 102 that says which.
struct SearchQueryLexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// Every token of the query, in order.
    static func tokens(of text: String) throws(DataAPIError) -> [SearchQueryToken] {
        var lexer = SearchQueryLexer(text)
        var tokens: [SearchQueryToken] = []
        while let token = try lexer.next() { tokens.append(token) }
        return tokens
    }

    private static let wordEnd: Set<Unicode.Scalar> = ["(", ")", "[", "]", "{", "}", ":", "\"", "^", "~", "/", "!"]

    private mutating func next() throws(DataAPIError) -> SearchQueryToken? {
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        guard index < scalars.count else { return nil }
        let scalar = scalars[index]
        let following = index + 1 < scalars.count ? scalars[index + 1] : nil
        switch scalar {
        case "(": index += 1; return .open
        case ")": index += 1; return .close
        case "[", "{": index += 1; return .rangeOpen(inclusive: scalar == "[")
        case "]", "}": index += 1; return .rangeClose(inclusive: scalar == "]")
        case ":": index += 1; return .colon
        case "!": index += 1; return .not
        case "+": index += 1; return .plus
        case "-": index += 1; return .minus
        case "&" where following == "&": index += 2; return .and
        case "|" where following == "|": index += 2; return .or
        case ">", "<":
            index += following == "=" ? 2 : 1
            return .comparison(following == "=" ? "\(scalar)=" : "\(scalar)")
        case "\"": return .phrase(try phrase())
        case "/": throw Self.refused("regular expressions (/…/)")
        case "~": throw Self.refused("fuzzy and proximity searches (~)")
        case "^": throw Self.refused("boosts (^)")
        default: return try word()
        }
    }

    private mutating func phrase() throws(DataAPIError) -> String {
        index += 1
        var text = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if scalar == "\\" {
                guard index < scalars.count else { break }
                text.append(scalars[index])
                index += 1
            } else if scalar == "\"" {
                try refuseSuffix()
                return String(text)
            } else {
                text.append(scalar)
            }
        }
        throw DataAPIError(.invalidQuery, "Invalid q: a phrase has no closing quote (\").")
    }

    private mutating func word() throws(DataAPIError) -> SearchQueryToken {
        var text = String.UnicodeScalarView()
        var isPrefix = false
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar.properties.isWhitespace || Self.wordEnd.contains(scalar) { break }
            if scalar == "&" || scalar == "|", index + 1 < scalars.count, scalars[index + 1] == scalar { break }
            index += 1
            if isPrefix {
                throw Self.refused("wildcards inside a word (only a trailing * is supported)")
            }
            switch scalar {
            case "\\":
                guard index < scalars.count else {
                    throw DataAPIError(.invalidQuery, "Invalid q: it ends in an escape (\\) with nothing to escape.")
                }
                text.append(scalars[index])
                index += 1
            case "?": throw Self.refused("? wildcards")
            case "*": isPrefix = true
            default: text.append(scalar)
            }
        }
        try refuseSuffix()
        let word = String(text)
        if word.isEmpty { return .star }
        if !isPrefix {
            switch word {
            case "AND": return .and
            case "OR": return .or
            case "NOT": return .not
            default: break
            }
        }
        return .word(word, isPrefix: isPrefix)
    }

    /// A `~` or `^` right after a word or phrase is a fuzzy/proximity search or a boost.
    private func refuseSuffix() throws(DataAPIError) {
        guard index < scalars.count else { return }
        if scalars[index] == "~" { throw Self.refused("fuzzy and proximity searches (~)") }
        if scalars[index] == "^" { throw Self.refused("boosts (^)") }
    }

    static func refused(_ what: String) -> DataAPIError {
        DataAPIError(.invalidQuery, "Search doesn't support \(what): escape the character with \\ to search for it.")
    }
}
