extension ObjectQuery {
    /// Builds a query from the REST parameters `where`, `order`, `limit`, `skip`, `keys`,
    /// `include` and `returnACL`, all as the text that arrived.
    public init(className: String, parameters: [String: String]) throws(DataAPIError) {
        self.init(className: className)
        if let whereText = parameters["where"], !whereText.isEmpty {
            predicate = try QueryPredicate(whereText: whereText)
        }
        if let orderText = parameters["order"] {
            order = try orderText.split(separator: ",").map { (part) throws(DataAPIError) in
                let text = part.trimmingWhitespace
                let descending = text.hasPrefix("-")
                let key = descending ? String(text.dropFirst()) : text
                guard Names.isValidKeyPath(key) else { throw DataAPIError(.invalidQuery, "Invalid order key '\(key)'.") }
                return SortKey(key: key, descending: descending)
            }
        }
        if let limitText = parameters["limit"] {
            guard let value = Int(limitText), value >= 0 else {
                throw DataAPIError(.invalidQuery, "limit must be a non-negative integer.")
            }
            // Past the most one page holds, LeanCloud serves the most (no error).
            limit = min(value, Self.maxLimit)
        }
        if let skipText = parameters["skip"] {
            guard let value = Int(skipText), value >= 0 else {
                throw DataAPIError(.invalidQuery, "skip must be a non-negative integer.")
            }
            skip = value
        }
        if let keysText = parameters["keys"], !keysText.isEmpty { keys = KeySelection(keysText) }
        if let includeText = parameters["include"] { include = Self.includePaths(includeText) }
        returnACL = parameters["returnACL"] == "true"
    }

    /// The paths of an `include` parameter (`author, post.author`).
    public static func includePaths(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingWhitespace }.filter { !$0.isEmpty }
    }
}
