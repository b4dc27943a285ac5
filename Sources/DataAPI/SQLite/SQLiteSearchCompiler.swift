internal import GRDB

/// Translates a `SearchExpression` into SQL over a class table and its FTS5 index.
///
/// The text parts FTS5 can say (matches joined by AND, OR, and NOT beside a positive part)
/// become one MATCH string; an expression made of them only is answered by joining that MATCH
/// to the class table. Anything else (conditions on fields, a NOT standing alone, `*`) is an
/// SQL condition on the class row, in which each text part is `rowid IN (… MATCH …)`, and the
/// text parts outside any NOT give the relevance, through a LEFT JOIN on their MATCH.
///
/// Tokens are quoted as FTS5 strings, and a token the analyzer can't have made (ASCII other
/// than lower-case letters and digits, which the `ascii` tokenizer would split or fold) matches
/// nothing rather than reaching FTS5: nothing a client sends can change the MATCH's syntax.
struct SQLiteSearchCompiler {
    /// The class's index.
    var index: SQLiteSearchIndex
    /// The class's find compiler, for conditions.
    var conditions: SQLiteQueryCompiler

    /// An expression after lowering: text matches already MATCH strings, conditions SQL.
    indirect enum Node {
        case match(String)
        case condition(SQLiteQueryCompiler.Fragment)
        case and([Node])
        case or([Node])
        case not(Node)
        case everything
        case nothing
    }

    /// What a search runs: the MATCH of the rows it joins (inner join when `joinsAll`, else a
    /// LEFT JOIN that only ranks), and the condition rows must meet.
    struct Compiled {
        var match: String?
        var joinsAll: Bool
        var condition: SQLiteQueryCompiler.Fragment
    }

    func compile(_ expression: SearchExpression) -> Compiled {
        let node = Self.simplify(lower(expression))
        if let match = Self.fts(node) {
            return Compiled(match: match, joinsAll: true, condition: .init(sql: "1"))
        }
        let positives = Self.positiveMatches(node)
        let rank = positives.isEmpty ? nil : positives.map { "(\($0))" }.joined(separator: " OR ")
        return Compiled(match: rank, joinsAll: false, condition: sql(node))
    }

    /// The node of an expression, its text matches as FTS5 strings.
    func lower(_ expression: SearchExpression) -> Node {
        switch expression {
        case .text(let match): return self.match(match)
        case .condition(let predicate): return .condition(conditions.compile(predicate))
        case .and(let parts): return .and(parts.map(lower))
        case .or(let parts): return .or(parts.map(lower))
        case .not(let part): return .not(lower(part))
        case .everything: return .everything
        }
    }

    /// The FTS5 string of one match: its tokens as a phrase within the field's columns.
    func match(_ match: SearchMatch) -> Node {
        let columns: [Int]
        if let field = match.field {
            guard let position = index.fields.firstIndex(of: field) else { return .nothing }
            columns = [position]
        } else {
            columns = Array(index.fields.indices)
        }
        guard !match.tokens.isEmpty, match.tokens.allSatisfy(Self.isIndexable) else { return .nothing }
        let names = columns.map { SQLiteSearchIndex.column($0, unigram: match.isUnigram) }.joined(separator: " ")
        // `isIndexable` let no `"` through: each token is a whole FTS5 string as it is.
        let phrase = match.tokens.map { "\"" + $0 + "\"" }.joined(separator: " + ")
        // A unigram is one character: there is nothing for a prefix to extend.
        let prefix = match.isPrefix && !match.isUnigram ? " *" : ""
        return .match("{\(names)} : (\(phrase)\(prefix))")
    }

    /// Whether the analyzer could have made `token` (and FTS5's `ascii` tokenizer keeps it
    /// as one token): not empty, and no ASCII but lower-case letters and digits.
    static func isIndexable(_ token: String) -> Bool {
        !token.isEmpty && token.unicodeScalars.allSatisfy { scalar in
            !scalar.isASCII || ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
        }
    }

    /// Folds `*`, what matches nothing and double negations away.
    static func simplify(_ node: Node) -> Node {
        switch node {
        case .and(let parts): return flatten(parts.map(simplify), and: true)
        case .or(let parts): return flatten(parts.map(simplify), and: false)
        case .not(let part):
            switch simplify(part) {
            case .everything: return .nothing
            case .nothing: return .everything
            case .not(let inner): return inner
            case let other: return .not(other)
            }
        default:
            return node
        }
    }

    /// An AND (`and`) or OR of simplified parts: nested ones of the same kind joined in, the
    /// neutral part (`*` for AND, nothing for OR) dropped, the absorbing one answered at once.
    private static func flatten(_ parts: [Node], and: Bool) -> Node {
        var kept: [Node] = []
        for part in parts {
            switch (part, and) {
            case (.nothing, true), (.everything, false): return part
            case (.everything, true), (.nothing, false): continue
            case (.and(let inner), true), (.or(let inner), false): kept += inner
            default: kept.append(part)
            }
        }
        if kept.count == 1 { return kept[0] }
        return kept.isEmpty ? (and ? .everything : .nothing) : (and ? .and(kept) : .or(kept))
    }

    /// The one MATCH string of a node made of text only, FTS5's NOT always beside a positive
    /// part; nil when FTS5 can't say it alone.
    static func fts(_ node: Node) -> String? {
        switch node {
        case .match(let string):
            return string
        case .or(let parts):
            let strings = parts.compactMap(fts)
            guard strings.count == parts.count else { return nil }
            return strings.map { "(\($0))" }.joined(separator: " OR ")
        case .and(let parts):
            var positives: [String] = []
            var negatives: [String] = []
            for part in parts {
                if case .not(let inner) = part {
                    guard let string = fts(inner) else { return nil }
                    negatives.append(string)
                } else {
                    guard let string = fts(part) else { return nil }
                    positives.append(string)
                }
            }
            guard !positives.isEmpty else { return nil }
            var string = positives.map { "(\($0))" }.joined(separator: " AND ")
            for negative in negatives { string = "(\(string)) NOT (\(negative))" }
            return string
        default:
            return nil
        }
    }

    /// The MATCH strings of the text parts outside any NOT: what ranks a mixed expression.
    static func positiveMatches(_ node: Node) -> [String] {
        switch node {
        case .match(let string): return [string]
        case .and(let parts), .or(let parts): return parts.flatMap(positiveMatches)
        default: return []
        }
    }

    /// The SQL condition of a node over the class row.
    func sql(_ node: Node) -> SQLiteQueryCompiler.Fragment {
        if let string = Self.fts(node) {
            return .init(
                sql: "\"\(index.table)\".rowid IN (SELECT rowid FROM \"\(index.ftsTable)\" WHERE \"\(index.ftsTable)\" MATCH ?)",
                arguments: [string.databaseValue])
        }
        switch node {
        case .condition(let fragment): return fragment
        case .and(let parts): return join(parts.map(sql), with: " AND ")
        case .or(let parts): return join(parts.map(sql), with: " OR ")
        // NULL (a comparison with a missing field) is false, and its negation true.
        case .not(let part):
            let inner = sql(part)
            return .init(sql: "(\(inner.sql)) IS NOT 1", arguments: inner.arguments)
        case .everything: return .init(sql: "1")
        case .nothing, .match: return .init(sql: "0")
        }
    }

    private func join(_ fragments: [SQLiteQueryCompiler.Fragment], with separator: String) -> SQLiteQueryCompiler.Fragment {
        .init(sql: fragments.map { "(\($0.sql))" }.joined(separator: separator), arguments: fragments.flatMap(\.arguments))
    }
}
