import Foundation
package import JSON

/// Cloud Query Language: `select * from Post where likes > ? and title like 'a%' order by
/// createdAt desc limit 10`, translated into an `ObjectQuery`.
///
/// Supported: `select *`, key lists, `count(*)`, `include key`; `where` with `=`, `!=`/`<>`, `<`,
/// `<=`, `>`, `>=`, `[not] in (...)`, `is [not] exists`, `[not] like`, `regexp`, `and`, `or`,
/// `not`, parentheses; values: numbers, quoted strings, `true`, `false`, `null`, `?`
/// placeholders, `date('...')`, `pointer('Class', 'id')`, `geopoint(lng, lat)`;
/// `order by key [asc|desc], ...` or REST's `order by -key, key`; `limit [skip,] count`.
package struct CQLParser {
    /// The query a statement asks for, and whether it asks for `count(*)`.
    public struct Statement: Sendable {
        /// The translated query.
        public var query: ObjectQuery
        /// Whether `count(*)` was selected.
        public var wantsCount: Bool
        /// Whether rows were selected (`*` or keys), not only the count.
        public var wantsRows: Bool
    }

    private var tokens: [CQLToken]
    private var position = 0
    private var parameters: [JSONValue]
    private var nextParameter = 0
    /// How many parentheses are open: bounded like JSON nesting, so `((((…` can't exhaust the stack.
    private var depth = 0

    /// Error 300 with a message saying what is wrong.
    public static func syntaxError(_ message: String) -> DataAPIError {
        DataAPIError(.cqlSyntax, "CQL syntax error: \(message).")
    }

    /// Parses a statement with its `?` values (`pvalues`).
    public static func parse(_ text: String, parameters: [JSONValue] = []) throws(DataAPIError) -> Statement {
        var parser = CQLParser(tokens: try CQLTokenizer.tokens(text), parameters: parameters)
        let statement = try parser.statement()
        // The bound a `where` given as JSON has: deeper would be refused by the database's own parser.
        if let predicate = statement.query.predicate, predicate.nesting > QueryPredicate.maxNesting {
            throw syntaxError("conditions nested deeper than \(QueryPredicate.maxNesting)")
        }
        // The same bound on a condition's size as a `where` has.
        try statement.query.predicate?.checkSize()
        return statement
    }

    private init(tokens: [CQLToken], parameters: [JSONValue]) {
        self.tokens = tokens
        self.parameters = parameters
    }

    private var current: CQLToken? { position < tokens.count ? tokens[position] : nil }

    private mutating func accept(word: String) -> Bool {
        if case .word(let w)? = current, w.lowercased() == word {
            position += 1
            return true
        }
        return false
    }

    private mutating func accept(symbol: String) -> Bool {
        if case .symbol(let s)? = current, s == symbol {
            position += 1
            return true
        }
        return false
    }

    private mutating func expect(word: String) throws(DataAPIError) {
        guard accept(word: word) else { throw Self.syntaxError("expected '\(word)'") }
    }

    private mutating func expect(symbol: String) throws(DataAPIError) {
        guard accept(symbol: symbol) else { throw Self.syntaxError("expected '\(symbol)'") }
    }

    private mutating func identifier() throws(DataAPIError) -> String {
        guard case .word(let w)? = current else { throw Self.syntaxError("expected a name") }
        position += 1
        return w
    }

    private mutating func statement() throws(DataAPIError) -> Statement {
        try expect(word: "select")
        var wantsCount = false
        var wantsRows = false
        var keys: [String] = []
        var include: [String] = []
        repeat {
            if accept(symbol: "*") {
                wantsRows = true
            } else if accept(word: "count") {
                // `count(*)` or `count(objectId)`, as LeanCloud's docs write it: both count rows.
                try expect(symbol: "(")
                if !accept(symbol: "*") {
                    let key = try identifier()
                    guard key == "objectId" else { throw Self.syntaxError("count takes * or objectId") }
                }
                try expect(symbol: ")")
                wantsCount = true
            } else if accept(word: "include") {
                include.append(try identifier())
            } else {
                keys.append(try identifier())
                wantsRows = true
            }
        } while accept(symbol: ",")
        try expect(word: "from")
        let className = try identifier()
        guard Names.isValidClassName(className) else { throw Self.syntaxError("invalid class name \(className)") }
        var query = ObjectQuery(className: className)
        query.include = include
        if !keys.isEmpty { query.keys = KeySelection((keys + include).joined(separator: ",")) }
        if accept(word: "where") { query.predicate = try orExpression() }
        while current != nil {
            if accept(word: "limit") {
                let a = try limitNumber()
                if accept(symbol: ",") {
                    query.skip = a
                    query.limit = try limitNumber()
                } else {
                    query.limit = a
                }
                guard query.limit >= 0, query.skip >= 0 else { throw Self.syntaxError("limit and skip can't be negative") }
                // Past the most one page holds, LeanCloud serves the most (no error).
                query.limit = min(query.limit, ObjectQuery.maxLimit)
            } else if accept(word: "order") {
                try expect(word: "by")
                repeat { query.order.append(try sortKey()) } while accept(symbol: ",")
            } else {
                throw Self.syntaxError("unexpected \(String(describing: current!))")
            }
        }
        return Statement(query: query, wantsCount: wantsCount, wantsRows: wantsRows || !wantsCount)
    }

    /// One key of `order by`: `key [asc|desc]`, or REST's `-key` (descending), as Valine sends
    /// it. A key may repeat (`-createdAt,-createdAt`): the first decides, as in a REST `order`.
    private mutating func sortKey() throws(DataAPIError) -> SortKey {
        let marked = accept(symbol: "-")
        let key = try identifier()
        guard Names.isValidKeyPath(key) else { throw Self.syntaxError("invalid order key \(key)") }
        if marked { return SortKey(key: key, descending: true) }
        let descending = accept(word: "desc")
        if !descending { _ = accept(word: "asc") }
        return SortKey(key: key, descending: descending)
    }

    private mutating func orExpression() throws(DataAPIError) -> QueryPredicate {
        var parts = [try andExpression()]
        while accept(word: "or") { parts.append(try andExpression()) }
        return parts.count == 1 ? parts[0] : .or(parts)
    }

    private mutating func andExpression() throws(DataAPIError) -> QueryPredicate {
        var parts = [try factor()]
        while accept(word: "and") { parts.append(try factor()) }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func factor() throws(DataAPIError) -> QueryPredicate {
        if accept(symbol: "(") {
            depth += 1
            guard depth <= JSONValue.maxNestingDepth else {
                throw Self.syntaxError("parentheses nested deeper than \(JSONValue.maxNestingDepth)")
            }
            let inner = try orExpression()
            try expect(symbol: ")")
            depth -= 1
            return inner
        }
        let key = try identifier()
        guard Names.isValidKeyPath(key) else { throw Self.syntaxError("invalid key \(key)") }
        if accept(word: "is") {
            let negated = accept(word: "not")
            try expect(word: "exists")
            return .exists(key: key, !negated)
        }
        let negated = accept(word: "not")
        if accept(word: "in") {
            try expect(symbol: "(")
            var values: [JSONValue] = []
            if !accept(symbol: ")") {
                repeat { values.append(try value()) } while accept(symbol: ",")
                try expect(symbol: ")")
            }
            guard values.count <= QueryPredicate.maxListValues else {
                throw DataAPIError(.invalidQuery, "in (...) takes at most \(QueryPredicate.maxListValues) values.")
            }
            return .oneOf(key: key, values, negated: negated)
        }
        if accept(word: "like") {
            guard case .string(let pattern) = try value() else { throw Self.syntaxError("like needs a string") }
            let like = Self.likePattern(pattern)
            // "not like": text that doesn't match, as a negative lookahead over the whole text.
            return negated
                ? .regex(key: key, pattern: "^(?!" + like.dropFirst() + ")", options: "s")
                : .regex(key: key, pattern: like, options: "s")
        }
        if accept(word: "regexp") {
            guard case .string(let pattern) = try value() else { throw Self.syntaxError("regexp needs a string") }
            guard RegexCache.shared.regex(pattern, options: "") != nil else { throw Self.syntaxError("invalid regexp") }
            return .regex(key: key, pattern: pattern, options: "")
        }
        guard !negated else { throw Self.syntaxError("'not' must precede in, like or exists") }
        guard case .symbol(let op)? = current, ["=", "!=", "<", "<=", ">", ">="].contains(op) else {
            throw Self.syntaxError("expected a comparison after \(key)")
        }
        position += 1
        let constant = try value()
        let comparison: ComparisonOperator
        switch op {
        case "=": comparison = .equal
        case "!=": comparison = .notEqual
        case "<": comparison = .less
        case "<=": comparison = .lessOrEqual
        case ">": comparison = .greater
        default: comparison = .greaterOrEqual
        }
        return .compare(key: key, comparison, constant)
    }

    /// A number of `limit`: written, or a `?` placeholder whose pvalue is a number.
    private mutating func limitNumber() throws(DataAPIError) -> Int {
        let number: JSONValue
        switch current {
        case .number(let n)?:
            position += 1
            number = n
        case .placeholder?:
            number = try value()
        default:
            throw Self.syntaxError("limit needs a number")
        }
        guard let int = number.intValue else { throw Self.syntaxError("limit needs a whole number") }
        return Int(int)
    }

    private mutating func value() throws(DataAPIError) -> JSONValue {
        guard let token = current else { throw Self.syntaxError("expected a value") }
        position += 1
        switch token {
        case .number(let n): return n
        case .string(let s): return .string(s)
        case .placeholder:
            guard nextParameter < parameters.count else { throw Self.syntaxError("not enough pvalues") }
            defer { nextParameter += 1 }
            return try Self.typed(parameters[nextParameter])
        case .word(let w):
            switch w.lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            case "date":
                let args = try arguments()
                guard args.count == 1, case .string(let iso) = args[0], let canonical = ISODate.normalized(iso) else {
                    throw Self.syntaxError("date() needs an ISO-8601 string")
                }
                return ["__type": "Date", "iso": .string(canonical)]
            case "pointer":
                let args = try arguments()
                guard args.count == 2, case .string(let className) = args[0], case .string(let id) = args[1] else {
                    throw Self.syntaxError("pointer() needs a class name and an objectId")
                }
                return ["__type": "Pointer", "className": .string(className), "objectId": .string(id)]
            case "geopoint":
                let args = try arguments()
                guard args.count == 2, let longitude = args[0].doubleValue, let latitude = args[1].doubleValue else {
                    throw Self.syntaxError("geopoint() needs a longitude and a latitude")
                }
                return ["__type": "GeoPoint", "latitude": .double(latitude), "longitude": .double(longitude)]
            default:
                throw Self.syntaxError("unexpected \(w)")
            }
        case .symbol(let s):
            throw Self.syntaxError("unexpected '\(s)'")
        }
    }

    private mutating func arguments() throws(DataAPIError) -> [JSONValue] {
        try expect(symbol: "(")
        var values: [JSONValue] = []
        if accept(symbol: ")") { return values }
        repeat { values.append(try value()) } while accept(symbol: ",")
        try expect(symbol: ")")
        return values
    }

    /// A `pvalues` element in its stored form (typed values as the REST API writes them).
    private static func typed(_ value: JSONValue) throws(DataAPIError) -> JSONValue {
        if value.typeTag == "Date", let iso = value["iso"]?.stringValue {
            guard let canonical = ISODate.normalized(iso) else { throw syntaxError("invalid date in pvalues") }
            return ["__type": "Date", "iso": .string(canonical)]
        }
        return value
    }

    /// SQL `like` (`%` any run, `_` one character) as an anchored regular expression.
    static func likePattern(_ like: String) -> String {
        var pattern = "^"
        for c in like {
            switch c {
            case "%": pattern += ".*"
            case "_": pattern += "."
            default: pattern += NSRegularExpression.escapedPattern(for: String(c))
            }
        }
        return pattern + "$"
    }
}
