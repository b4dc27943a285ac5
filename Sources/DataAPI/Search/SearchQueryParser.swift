public import JSON

/// Parses LeanCloud's search query (`q`, the subset of Elasticsearch's query-string syntax this
/// host offers) into a `SearchExpression` for one class.
///
/// - Words and phrases (`可乐`, `"lady gaga"`) are text matches in any indexed field; `field:word`,
///   `field:"a phrase"` and `field:(a OR b)` in that field, which must be one search is on for
///   (a dotted path, `book.name`, matches in its top-level field `book`). `bro*` is a prefix.
/// - Several clauses without an operator are alternatives, as Elasticsearch's default operator
///   (`OR`) makes them; `AND`/`&&`, `OR`/`||`, `NOT`/`!`, `+` (must), `-` (must not) and
///   parentheses combine them, AND binding tighter than OR.
/// - `*` alone matches every document; `field:*` and `_exists_:field` those holding the field,
///   `_missing_:field` the others.
/// - Ranges (`count:[1 TO 5]`, `{…}` open, `*` unbounded), comparisons (`age:>=10`),
///   `objectId:x`, `createdAt:[… TO …]`, dates as `birthday.iso:[…]`, and a number or boolean
///   equality on any field are conditions on the object's own fields (`QueryPredicate`s, checked
///   as a find's are).
/// - Refused with 102: regular expressions, fuzzy `~`, boosts `^`, `?` and inner wildcards, a
///   text match on a field search isn't on for, and queries past the bounds below.
package struct SearchQueryParser {
    /// The longest `q`, in UTF-8 bytes.
    package static let maxLength = 4096
    /// The most words, phrases and conditions in one `q`.
    package static let maxClauses = 64
    /// The deepest nesting of parentheses (within the engines' `SearchLimits.maxDepth`, which
    /// also counts the AND, OR and NOT they hold).
    package static let maxDepth = 12

    /// The class searched (for messages).
    let className: String
    /// The fields search is on for in the class.
    let indexedFields: Set<String>
    private var tokens: [SearchQueryToken] = []
    private var position = 0
    private var clauses = 0
    private var depth = 0

    /// Parses `q` for a class whose indexed fields are `indexedFields`.
    ///
    /// - Throws: 102 for a query that is empty, too long, too deep, holds too many clauses,
    ///   doesn't parse, uses a refused feature or matches text in a field that isn't indexed.
    package static func parse(_ query: String, className: String, indexedFields: Set<String>) throws(DataAPIError)
        -> SearchExpression
    {
        guard query.utf8.count <= maxLength else {
            throw DataAPIError(.invalidQuery, "q is too long: at most \(maxLength) bytes.")
        }
        var parser = SearchQueryParser(className: className, indexedFields: indexedFields)
        parser.tokens = try SearchQueryLexer.tokens(of: query)
        guard !parser.tokens.isEmpty else { throw DataAPIError(.invalidQuery, "q is required: the text to search for.") }
        let expression = try parser.disjunction(field: nil)
        if parser.position < parser.tokens.count {
            throw DataAPIError(.invalidQuery, "Invalid q: unexpected \(parser.describe(parser.tokens[parser.position])).")
        }
        return expression
    }

    private init(className: String, indexedFields: Set<String>) {
        self.className = className
        self.indexedFields = indexedFields
    }

    private var current: SearchQueryToken? { position < tokens.count ? tokens[position] : nil }

    /// Clauses side by side or joined by OR, with Lucene's `+`/`-` meaning: required ones must
    /// all match, prohibited ones mustn't, and the others are alternatives (needed only when
    /// nothing is required).
    private mutating func disjunction(field: String?) throws(DataAPIError) -> SearchExpression {
        var required: [SearchExpression] = []
        var optional: [SearchExpression] = []
        var prohibited: [SearchExpression] = []
        var afterOr = false
        while let token = current, token != .close {
            if token == .or {
                let isFirst = required.isEmpty && optional.isEmpty && prohibited.isEmpty
                guard !isFirst, !afterOr else { throw DataAPIError(.invalidQuery, "Invalid q: OR needs a clause on each side.") }
                afterOr = true
                position += 1
                continue
            }
            afterOr = false
            let (modifier, clause) = try conjunction(field: field)
            switch modifier {
            case .plus: required.append(clause)
            case .minus: prohibited.append(clause)
            default: optional.append(clause)
            }
        }
        if afterOr { throw DataAPIError(.invalidQuery, "Invalid q: OR needs a clause on each side.") }
        if required.isEmpty, optional.isEmpty, prohibited.isEmpty {
            throw DataAPIError(.invalidQuery, "Invalid q: an empty group.")
        }
        var parts = required
        if required.isEmpty, !optional.isEmpty { parts.append(optional.count == 1 ? optional[0] : .or(optional)) }
        parts += prohibited.map { .not($0) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    /// Clauses joined by AND; a lone clause keeps its modifier for the disjunction around it.
    private mutating func conjunction(field: String?) throws(DataAPIError) -> (SearchQueryToken?, SearchExpression) {
        var (modifier, first) = try modified(field: field)
        guard current == .and else { return (modifier, first) }
        if modifier == .minus { first = .not(first) }
        modifier = nil
        var parts = [first]
        while current == .and {
            position += 1
            let (next, clause) = try modified(field: field)
            parts.append(next == .minus ? .not(clause) : clause)
        }
        return (nil, .and(parts))
    }

    /// A clause with its `+`, `-`, `!` or `NOT` (the last two mean `-`).
    private mutating func modified(field: String?) throws(DataAPIError) -> (SearchQueryToken?, SearchExpression) {
        switch current {
        case .plus?:
            position += 1
            return (.plus, try primary(field: field))
        case .minus?, .not?:
            position += 1
            return (.minus, try primary(field: field))
        case .and?, .or?:
            throw DataAPIError(.invalidQuery, "Invalid q: \(describe(current!)) needs a clause on each side.")
        default:
            return (nil, try primary(field: field))
        }
    }

    private mutating func primary(field: String?) throws(DataAPIError) -> SearchExpression {
        guard let token = current else { throw DataAPIError(.invalidQuery, "Invalid q: it ends where a clause was expected.") }
        position += 1
        switch token {
        case .open:
            depth += 1
            guard depth <= Self.maxDepth else {
                throw DataAPIError(.invalidQuery, "q nests too deeply: at most \(Self.maxDepth) levels of parentheses.")
            }
            let inner = try disjunction(field: field)
            guard current == .close else { throw DataAPIError(.invalidQuery, "Invalid q: a ( has no closing ).") }
            position += 1
            depth -= 1
            return inner
        case .star:
            return try field.map { (name) throws(DataAPIError) in try exists(name, true) } ?? .everything
        case .phrase(let text):
            return try term(text, field: field, isPhrase: true, isPrefix: false)
        case .word(let text, let isPrefix):
            // `book.*:x` names the fields under `book`.
            if current == .colon, field == nil, !isPrefix || text.hasSuffix(".") {
                position += 1
                return try fieldClause(isPrefix ? text + "*" : text)
            }
            return try term(text, field: field, isPhrase: false, isPrefix: isPrefix)
        case .plus, .minus, .not:
            throw DataAPIError(.invalidQuery, "Invalid q: \(describe(token)) must come before a clause, once.")
        default:
            throw DataAPIError(.invalidQuery, "Invalid q: unexpected \(describe(token)).")
        }
    }

    /// What follows `field:`: a word, phrase, group, range, comparison or `*`.
    private mutating func fieldClause(_ name: String) throws(DataAPIError) -> SearchExpression {
        if name == "_exists_" || name == "_missing_" {
            guard case .word(let target, false)? = current else {
                throw DataAPIError(.invalidQuery, "Invalid q: \(name): takes a field name.")
            }
            position += 1
            return try exists(target, name == "_exists_")
        }
        var field = name
        if field.hasSuffix(".*") { field.removeLast(2) }
        guard Names.isValidKeyPath(field) else { throw DataAPIError(.invalidQuery, "Invalid q: '\(name)' is not a field name.") }
        switch current {
        case .rangeOpen(let inclusive)?:
            position += 1
            return try range(field, lowerInclusive: inclusive)
        case .comparison(let op)?:
            position += 1
            let value = try value(field)
            return try condition(field, [Self.comparisonOperators[op]!: value])
        case .open?, .word?, .phrase?, .star?:
            return try primary(field: field)
        default:
            throw DataAPIError(.invalidQuery, "Invalid q: \(name): takes a value.")
        }
    }

    private static let comparisonOperators = [">": "$gt", ">=": "$gte", "<": "$lt", "<=": "$lte"]

    /// `[low TO high]`, each end inclusive with `[`/`]`, exclusive with `{`/`}`, `*` for none.
    private mutating func range(_ field: String, lowerInclusive: Bool) throws(DataAPIError) -> SearchExpression {
        let low = try bound(field)
        guard case .word("TO", false)? = current else { throw DataAPIError(.invalidQuery, "Invalid q: a range is [low TO high].") }
        position += 1
        let high = try bound(field)
        guard case .rangeClose(let upperInclusive)? = current else {
            throw DataAPIError(.invalidQuery, "Invalid q: a range ends with ] or }.")
        }
        position += 1
        var operators: [String: JSONValue] = [:]
        if let low { operators[lowerInclusive ? "$gte" : "$gt"] = low }
        if let high { operators[upperInclusive ? "$lte" : "$lt"] = high }
        return operators.isEmpty ? try exists(field, true) : try condition(field, operators)
    }

    /// One end of a range; nil for `*`.
    private mutating func bound(_ field: String) throws(DataAPIError) -> JSONValue? {
        if current == .star {
            position += 1
            return nil
        }
        return try value(field)
    }

    /// A value after a comparison or in a range: a word (a leading `-` kept) or a phrase.
    private mutating func value(_ field: String) throws(DataAPIError) -> JSONValue {
        var sign = ""
        if current == .minus {
            sign = "-"
            position += 1
        }
        switch current {
        case .word(let text, false)?:
            position += 1
            return Self.typed(sign + text, field: field, isPhrase: false)
        case .phrase(let text)? where sign.isEmpty:
            position += 1
            return Self.typed(text, field: field, isPhrase: true)
        default:
            throw DataAPIError(.invalidQuery, "Invalid q: \(field) is compared with a word, number, date or phrase.")
        }
    }

    /// A word or phrase: a text match in an indexed field (or any), else an equality condition
    /// where the field has a type of its own (objectId, dates) or the value is a number or boolean.
    private mutating func term(_ text: String, field: String?, isPhrase: Bool, isPrefix: Bool) throws(DataAPIError)
        -> SearchExpression
    {
        try count()
        let top = field.map { String($0.split(separator: ".", maxSplits: 1).first ?? "") }
        if field == nil || indexedFields.contains(top!) {
            guard let match = SearchAnalyzer.match(text, field: top, isPrefix: isPrefix) else { return .or([]) }
            return .text(match)
        }
        let field = field!
        let isTyped = Names.builtInFields.contains(field) || field.hasSuffix(".iso")
        let value = Self.typed(text, field: field, isPhrase: isPhrase)
        guard !isPrefix, isTyped || value.stringValue == nil else {
            throw DataAPIError(
                .invalidQuery,
                "Search isn't on for the field \(field) of \(className): text matches need an indexed field (ranges, comparisons, numbers and booleans work on any).")
        }
        clauses -= 1
        return try condition(field, nil, equal: value)
    }

    private mutating func exists(_ field: String, _ present: Bool) throws(DataAPIError) -> SearchExpression {
        guard Names.isValidKeyPath(field) else { throw DataAPIError(.invalidQuery, "Invalid q: '\(field)' is not a field name.") }
        return try condition(field, ["$exists": .bool(present)])
    }

    /// A condition as a find's `where` says it, parsed by the one predicate parser.
    private mutating func condition(_ field: String, _ operators: [String: JSONValue]?, equal: JSONValue? = nil)
        throws(DataAPIError) -> SearchExpression
    {
        try count()
        let key = field.hasSuffix(".iso") ? String(field.dropLast(4)) : field
        guard Names.isValidKeyPath(key) else { throw DataAPIError(.invalidQuery, "Invalid q: '\(field)' is not a field name.") }
        let clause: JSONValue = operators.map { JSONValue.object($0) } ?? equal ?? .null
        return .condition(try QueryPredicate(where: .object([key: clause])))
    }

    private mutating func count() throws(DataAPIError) {
        clauses += 1
        guard clauses <= Self.maxClauses else {
            throw DataAPIError(.invalidQuery, "q has too many clauses: at most \(Self.maxClauses) words, phrases and conditions.")
        }
    }

    /// A value of `q` as JSON: a Date for the built-in dates and `.iso` paths (a bare day is its
    /// midnight UTC), a number or boolean for unquoted ones that read as such, else a string.
    static func typed(_ text: String, field: String, isPhrase: Bool) -> JSONValue {
        if field == "createdAt" || field == "updatedAt" || field.hasSuffix(".iso") {
            let isDay = text.utf8.count == 10 && text.utf8.enumerated().allSatisfy { index, byte in
                index == 4 || index == 7 ? byte == UInt8(ascii: "-") : (0x30...0x39).contains(byte)
            }
            return ["__type": "Date", "iso": .string(isDay ? text + "T00:00:00.000Z" : text)]
        }
        if field == "objectId" || isPhrase { return .string(text) }
        if let integer = Int64(text) { return .int(integer) }
        if let number = Double(text), number.isFinite { return .double(number) }
        if text == "true" || text == "false" { return .bool(text == "true") }
        return .string(text)
    }

    private func describe(_ token: SearchQueryToken) -> String {
        switch token {
        case .word(let text, _): "'\(text.prefix(40))'"
        case .phrase: "a phrase"
        case .star: "*"
        case .and: "AND"
        case .or: "OR"
        case .not: "NOT"
        case .plus: "+"
        case .minus: "-"
        case .colon: ":"
        case .open: "("
        case .close: ")"
        case .rangeOpen(let inclusive): inclusive ? "[" : "{"
        case .rangeClose(let inclusive): inclusive ? "]" : "}"
        case .comparison(let op): op
        }
    }
}
