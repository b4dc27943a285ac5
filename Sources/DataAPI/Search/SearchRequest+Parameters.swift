public import JSON

extension SearchRequest {
    /// Reads a search from its REST parameters as JSON (what `GET /1.1/search/select` sends, and
    /// what cloud code's data APIs pass): `q`, `clazz`, `limit` (past 1000 the most, as a find
    /// serves), `skip`, `sid`, `fields` or `keys`, `highlights`, `include` and `order` (comma lists
    /// or arrays), `sort` (the SDKs' sort builder's JSON, as text or an array), `returnACL`.
    ///
    /// - Throws: 102 for a missing `q`, a malformed number, list or sort, `order` with `sort`, or
    ///   a `_geo_distance` sort (not offered).
    public init(parameters json: [String: JSONValue]) throws(DataAPIError) {
        guard case .string(let query)? = json["q"], !query.isEmpty else {
            throw DataAPIError(.invalidQuery, "q is required: the text to search for.")
        }
        let className = json["clazz"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        self.init(className: className, query: query)
        if let value = try ObjectQuery.count(json["limit"], name: "limit") { limit = min(value, ObjectQuery.maxLimit) }
        if let value = try ObjectQuery.count(json["skip"], name: "skip") { skip = value }
        scrollID = json["sid"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        var keysText = try ObjectQuery.list(json["fields"], name: "fields")
        if keysText == nil { keysText = try ObjectQuery.list(json["keys"], name: "keys") }
        if let keysText, !keysText.isEmpty { keys = KeySelection(keysText) }
        if let text = try ObjectQuery.list(json["highlights"], name: "highlights"), !text.isEmpty {
            highlights = ObjectQuery.includePaths(text)
        }
        if let text = try ObjectQuery.list(json["include"], name: "include") { include = ObjectQuery.includePaths(text) }
        returnACL = json["returnACL"] == true || json["returnACL"] == "true"
        let orderText = try ObjectQuery.list(json["order"], name: "order").flatMap { $0.isEmpty ? nil : $0 }
        let sort = try Self.sortKeys(json["sort"])
        if orderText != nil, sort != nil { throw DataAPIError(.invalidQuery, "order and sort can't be used together.") }
        if let orderText {
            order = try orderText.split(separator: ",").map { (part) throws(DataAPIError) in
                let text = part.trimmingWhitespace
                let descending = text.hasPrefix("-")
                return try Self.sortKey(descending ? String(text.dropFirst()) : text, descending: descending)
            }
        }
        if let sort { order = sort }
    }

    /// The field entries of a `sort` (`[{"score":{"order":"desc","mode":"max","missing":"_last"}}]`);
    /// `mode` and `missing` are accepted and not used (fields sort as a find's `order` does).
    private static func sortKeys(_ value: JSONValue?) throws(DataAPIError) -> [SortKey]? {
        var value = value
        if case .string(let text)? = value {
            if text.isEmpty { return nil }
            guard let parsed = try? JSONValue(parsing: text) else {
                throw DataAPIError(.invalidQuery, "sort must be a JSON array of {\"field\": {\"order\": \"asc\"|\"desc\"}}.")
            }
            value = parsed
        }
        guard let value, value != .null else { return nil }
        guard case .array(let entries) = value, entries.count <= ObjectQuery.maxOrderKeys else {
            throw DataAPIError(
                .invalidQuery, "sort must be a JSON array of at most \(ObjectQuery.maxOrderKeys) {\"field\": {\"order\": \"asc\"|\"desc\"}}.")
        }
        return try entries.map { (entry) throws(DataAPIError) in
            guard case .object(let members) = entry, members.count == 1, let (field, options) = members.first else {
                throw DataAPIError(.invalidQuery, "Each sort entry is one {\"field\": {\"order\": \"asc\"|\"desc\"}}.")
            }
            if field == "_geo_distance" {
                throw DataAPIError(.invalidQuery, "Search doesn't support sorting by _geo_distance.")
            }
            let order = options["order"]?.stringValue ?? "asc"
            guard order == "asc" || order == "desc" else {
                throw DataAPIError(.invalidQuery, "The order of \(field) in sort is asc or desc.")
            }
            return try sortKey(field, descending: order == "desc")
        }
    }

    private static func sortKey(_ key: String, descending: Bool) throws(DataAPIError) -> SortKey {
        guard key == "_score" || Names.isValidKeyPath(key) else { throw DataAPIError(.invalidQuery, "Invalid order key '\(key)'.") }
        return SortKey(key: key, descending: descending)
    }
}
