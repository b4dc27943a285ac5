public import JSON

extension ObjectQuery {
    /// Builds a query from its REST parameters as JSON — what cloud code's data API passes, and
    /// what a find hook sees and hands back: `where` (an object, or its JSON text), `order`,
    /// `keys` and `include` (comma lists, or arrays of names), `limit` and `skip` (integers, or
    /// their digits), `returnACL`.
    public init(className: String, query json: [String: JSONValue]) throws(DataAPIError) {
        self.init(className: className)
        switch json["where"] {
        case nil, .null?: break
        case .string(let text)?: if !text.isEmpty { predicate = try QueryPredicate(whereText: text) }
        case let condition?: predicate = try QueryPredicate(where: condition)
        }
        if let orderText = try Self.list(json["order"], name: "order") {
            order = try orderText.split(separator: ",").map { (part) throws(DataAPIError) in
                let text = part.trimmingWhitespace
                let descending = text.hasPrefix("-")
                let key = descending ? String(text.dropFirst()) : text
                guard Names.isValidKeyPath(key) else { throw DataAPIError(.invalidQuery, "Invalid order key '\(key)'.") }
                return SortKey(key: key, descending: descending)
            }
        }
        if let value = try Self.count(json["limit"], name: "limit") {
            // Past the most one page holds, LeanCloud serves the most (no error).
            limit = min(value, Self.maxLimit)
        }
        if let value = try Self.count(json["skip"], name: "skip") { skip = value }
        if let keysText = try Self.list(json["keys"], name: "keys"), !keysText.isEmpty { keys = KeySelection(keysText) }
        if let includeText = try Self.list(json["include"], name: "include") { include = Self.includePaths(includeText) }
        returnACL = json["returnACL"] == true || json["returnACL"] == "true"
    }

    /// Builds a query from the REST parameters as the text that arrived in a URL.
    public init(className: String, parameters: [String: String]) throws(DataAPIError) {
        try self.init(className: className, query: Self.json(parameters))
    }

    /// URL parameters as the query's JSON: `where` parsed when it parses (else kept as text,
    /// for the parser to refuse with its message), `limit` and `skip` as numbers when they are.
    public static func json(_ parameters: [String: String]) -> [String: JSONValue] {
        var json: [String: JSONValue] = [:]
        for (key, text) in parameters {
            if key == "where", let condition = try? JSONValue(parsing: text) {
                json[key] = condition
            } else if key == "limit" || key == "skip", let number = Int64(text) {
                json[key] = .int(number)
            } else {
                json[key] = .string(text)
            }
        }
        return json
    }

    /// The paths of an `include` parameter (`author, post.author`).
    public static func includePaths(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingWhitespace }.filter { !$0.isEmpty }
    }

    /// A comma list given as text or as an array of names.
    static func list(_ value: JSONValue?, name: String) throws(DataAPIError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case .array(let items)? where items.allSatisfy({ $0.stringValue != nil }):
            return items.compactMap(\.stringValue).joined(separator: ",")
        default: throw DataAPIError(.invalidQuery, "\(name) must be a comma-separated list of keys.")
        }
    }

    /// A non-negative integer given as a number or as its digits.
    static func count(_ value: JSONValue?, name: String) throws(DataAPIError) -> Int? {
        let number: Int?
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: number = Int(text)
        case let value?: number = value.intValue.map { Int($0) }
        }
        guard let number, number >= 0 else { throw DataAPIError(.invalidQuery, "\(name) must be a non-negative integer.") }
        return number
    }
}
