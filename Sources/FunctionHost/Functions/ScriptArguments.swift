import DataAPI
import JSON

/// The arguments of one `data.*` call from a script, read into what the REST routes take.
///
/// Query parts are turned back into the REST API's parameter text so that `ObjectQuery` parses
/// them exactly as it parses `GET /classes/{cls}`: one parser, one meaning.
struct ScriptArguments: Sendable {
    /// The arguments object as the script sent it.
    let json: JSONValue

    /// Wraps the arguments of a call.
    init(_ json: JSONValue) {
        self.json = json
    }

    /// The `className` argument.
    func className() throws(DataAPIError) -> String {
        guard let name = json["className"]?.stringValue else {
            throw DataAPIError(.invalidClassName, "The operation needs a className.")
        }
        return name
    }

    /// The `objectId` argument.
    func objectId() throws(DataAPIError) -> String {
        guard let id = json["objectId"]?.stringValue, !id.isEmpty else {
            throw DataAPIError(.missingObjectId, "The operation needs an objectId.")
        }
        return id
    }

    /// The `data` argument: the REST body of a create or update.
    func body() throws(DataAPIError) -> [String: JSONValue] {
        switch json["data"] {
        case nil, .null?:
            return [:]
        case .object(var body)?:
            // The REST routes never store these as fields; neither do scripts. A skip list in
            // the data is dropped unread: what a script saves may be a client's params, and
            // only the code itself (the call's `ignoreHooks`) skips hooks.
            body["fetchWhenSave"] = nil
            body["__ignore_hooks"] = nil
            return body
        default:
            throw DataAPIError(.malformedJSON, "data must be a JSON object.")
        }
    }

    /// The `where` of a conditional update or delete, nil when there is none.
    func condition() throws(DataAPIError) -> QueryPredicate? {
        switch json["where"] {
        case nil, .null?:
            return nil
        case .string(let text)?:
            return text.isEmpty ? nil : try QueryPredicate(whereText: text)
        case let condition?:
            return try QueryPredicate(where: condition)
        }
    }

    /// A list argument (`include`, `keys`, `order`) as the REST API's comma-separated text; an
    /// array of strings or a string are accepted, nil when absent.
    func list(_ name: String) throws(DataAPIError) -> String? {
        switch json[name] {
        case nil, .null?:
            return nil
        case .string(let text)?:
            return text
        case .array(let elements)?:
            var names: [String] = []
            for element in elements {
                guard let text = element.stringValue else {
                    throw DataAPIError(.invalidQuery, "\(name) must be a list of strings.")
                }
                names.append(text)
            }
            return names.joined(separator: ",")
        default:
            throw DataAPIError(.invalidQuery, "\(name) must be a list of strings.")
        }
    }

    /// `where`, `order`, `limit`, `skip`, `keys`, `include` and `returnACL`: the query's REST
    /// parameters as JSON, as the script passed them (`ObjectQuery(className:query:)` reads
    /// objects and lists directly, so nothing is printed as text to be parsed again).
    func query() -> [String: JSONValue] {
        (json.objectValue ?? [:]).filter { ["where", "order", "keys", "include", "limit", "skip", "returnACL"].contains($0.key) }
    }
}
