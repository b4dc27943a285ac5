import DataAPI
import JSON

/// The `query` of a subscribe request as the SDKs send it: `className`, `where` (an object),
/// `keys` (a comma list, or an array), `returnACL` (a boolean or `"true"`), and from the Swift
/// SDK `include`, `order`, `limit`, `skip` (the whole query). A subscription has no page:
/// `order`, `limit` and `skip` are ignored.
enum StandingQueryParsing {
    /// The subscription's query.
    ///
    /// - Throws: 102 for a missing or malformed query, a `where` past the limits or not
    ///   parsable; 103 for a class name that isn't one.
    static func query(from json: JSONValue?, limits: LiveQueryLimits) throws(DataAPIError) -> ObjectQuery {
        guard case .object(var members)? = json else {
            throw DataAPIError(.invalidQuery, "query must be an object with className and where.")
        }
        guard JSONValue.object(members).jsonBytes.count <= limits.maxQueryBytes else {
            throw DataAPIError(.invalidQuery, "The query is too large: at most \(limits.maxQueryBytes) bytes.")
        }
        guard case .string(let className)? = members.removeValue(forKey: "className"), !className.isEmpty else {
            throw DataAPIError(.invalidClassName, "query.className is required.")
        }
        for ignored in ["order", "limit", "skip"] { members[ignored] = nil }
        var query = try ObjectQuery(className: className, query: members)
        // The page the SDK's query would have asked for is no part of the subscription.
        query.limit = ObjectQuery.maxLimit
        if let predicate = query.predicate, predicate.weight > limits.maxQueryWeight {
            throw DataAPIError(
                .invalidQuery, "A LiveQuery where holds at most \(limits.maxQueryWeight) conditions and values in all.")
        }
        return query
    }

    /// Whether `id` may name a subscription: 1 to `maxIDLength` bytes of letters, digits and
    /// `-`, `_`, `.`, `:` (the SDKs send `livequery-<uuid>` or a GUID).
    static func isValidID(_ id: String, limits: LiveQueryLimits) -> Bool {
        let bytes = id.utf8
        guard !bytes.isEmpty, bytes.count <= limits.maxIDLength else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
                return true
            default:
                return false
            }
        }
    }
}
