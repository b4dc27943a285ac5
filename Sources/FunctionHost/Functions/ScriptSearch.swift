import DataAPI
import JSON

/// `data.search` (`AV.SearchQuery#find`): the script's arguments read into the `SearchRequest`
/// a client's `GET /1.1/search/select` makes, and the answer in that route's JSON shape.
enum ScriptSearch {
    /// The most sort keys one search takes.
    static let maxSortKeys = 16

    /// The request the arguments describe. `order`, `keys`, `include`, `limit`, `skip` and
    /// `returnACL` are read by the find parameters' parser, so they mean what they mean in a
    /// find; `q`, `sid`, `highlights` and `sort` are the search's own.
    ///
    /// - Throws: 102 for a missing `q`, a malformed `sort` or `highlights`, `sort` together with
    ///   `order`, or a sort by geo distance.
    static func request(_ arguments: ScriptArguments) throws(DataAPIError) -> SearchRequest {
        let json = arguments.json
        guard let text = json["q"]?.stringValue, !text.isEmpty else {
            throw DataAPIError(.invalidQuery, "Please set query string.")
        }
        var className: String?
        if let name = json["className"], name != .null {
            className = try arguments.className()
        }
        // The class is only a label here: the search checks it (and the caller's right to find it).
        let parsed = try ObjectQuery(className: className ?? "_", query: arguments.query())
        var order = parsed.order
        if let sort = json["sort"], sort != .null {
            guard order.isEmpty else { throw DataAPIError(.invalidQuery, "sort and order can not be set at same time.") }
            order = try sortKeys(sort)
        }
        var highlights: [String]?
        if let list = try arguments.list("highlights") {
            highlights = ObjectQuery.includePaths(list)
        }
        var scrollID: String?
        if let sid = json["sid"], sid != .null {
            guard let text = sid.stringValue else { throw DataAPIError(.invalidQuery, "sid must be a string.") }
            scrollID = text.isEmpty ? nil : text
        }
        return SearchRequest(
            className: className, query: text, limit: parsed.limit, skip: parsed.skip, scrollID: scrollID,
            keys: parsed.keys, highlights: highlights, include: parsed.include, order: order, returnACL: parsed.returnACL)
    }

    /// The keys of a `sort` (`AV.SearchSortBuilder#build()`'s JSON text, or its array): each
    /// entry `{"<field>": {"order": "asc"|"desc", "mode": ..., "missing": ...}}` in turn. `mode`
    /// and `missing` are accepted and order as a find orders (a field's value, missing ones as
    /// a find places them); a `_geo_distance` entry is refused.
    static func sortKeys(_ sort: JSONValue) throws(DataAPIError) -> [SortKey] {
        var value = sort
        if case .string(let text) = sort {
            guard let parsed = try? JSONValue(parsing: Array(text.utf8)) else {
                throw DataAPIError(.invalidQuery, "sort must be a JSON array.")
            }
            value = parsed
        }
        guard let entries = value.arrayValue, entries.count <= maxSortKeys else {
            throw DataAPIError(.invalidQuery, "sort must be a JSON array of at most \(maxSortKeys) entries.")
        }
        return try entries.map { (entry) throws(DataAPIError) in
            guard let object = entry.objectValue, object.count == 1, let only = object.first else {
                throw DataAPIError(.invalidQuery, "Each sort entry must be one {\"field\": {\"order\": \"asc\"}} object.")
            }
            let (key, options) = (only.key, only.value)
            guard key != "_geo_distance" else {
                throw DataAPIError(.invalidQuery, "Sorting a search by _geo_distance is not supported.")
            }
            guard Names.isValidKeyPath(key) || key == "_score" else {
                throw DataAPIError(.invalidQuery, "Invalid sort key '\(key)'.")
            }
            switch options["order"] {
            case nil, .null?, "asc"?: return SortKey(key: key, descending: false)
            case "desc"?: return SortKey(key: key, descending: true)
            default: throw DataAPIError(.invalidQuery, "The order of sort key '\(key)' must be asc or desc.")
            }
        }
    }

    /// The answer as `GET /1.1/search/select` gives it: `results` (each with its `className`
    /// and, when highlights were asked for, `_highlight`), `hits`, and `sid` (null on the last
    /// page).
    static func answerJSON(_ answer: SearchAnswer, returnACL: Bool) -> JSONValue {
        let results = answer.results.map { result -> JSONValue in
            var json = result.object.restJSON(includeACL: returnACL)
            json["className"] = .string(result.object.className)
            if let highlight = result.highlight {
                json["_highlight"] = .object(highlight.mapValues { .array($0.map(JSONValue.string)) })
            }
            return .object(json)
        }
        return [
            "results": .array(results), "hits": .int(Int64(answer.hits)),
            "sid": answer.scrollID.map(JSONValue.string) ?? .null,
        ]
    }
}
