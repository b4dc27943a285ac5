import JSON

/// A query's REST parameters as the JSON a find hook sees and returns (`{"where": {...},
/// "limit": 10, "order": "-score"}`), and back as the text the query parser reads.
enum QueryParameters {
    private static let numeric: Set<String> = ["limit", "skip"]

    /// The parameters as JSON: `where` parsed, `limit` and `skip` as numbers, others as text.
    static func json(_ parameters: [String: String]) -> [String: JSONValue] {
        var json: [String: JSONValue] = [:]
        for (key, text) in parameters {
            if key == "where", let condition = try? JSONValue(parsing: text) {
                json[key] = condition
            } else if numeric.contains(key), let number = Int64(text) {
                json[key] = .int(number)
            } else {
                json[key] = .string(text)
            }
        }
        return json
    }

    /// A hook's JSON back as parameters; a value of the wrong shape is the hook's mistake.
    static func text(_ json: [String: JSONValue]) throws(DataAPIError) -> [String: String] {
        var parameters: [String: String] = [:]
        for (key, value) in json {
            switch value {
            case .null: continue
            case .string(let text): parameters[key] = text
            case .int(let number): parameters[key] = String(number)
            case .bool(let flag): parameters[key] = String(flag)
            case .object where key == "where": parameters[key] = value.jsonString
            case .array(let items) where items.allSatisfy({ $0.stringValue != nil }):
                // `keys` and `include` may come back as lists.
                parameters[key] = items.compactMap(\.stringValue).joined(separator: ",")
            default:
                throw DataAPIError(.invalidQuery, "A find hook returned an invalid '\(key)'.")
            }
        }
        return parameters
    }
}
