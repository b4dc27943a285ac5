import Foundation
public import JSON

/// The order a scan walks a class in (`scan_key`): objectId by default, or another field,
/// ascending or (`-key`) descending, objectId breaking ties. Its `cursor` is where the previous
/// page ended; clients treat it as opaque.
public struct ScanOrder: Sendable, Equatable {
    /// The field walked by, `objectId` by default.
    public var key: String
    /// Whether the walk is descending (`scan_key=-key`).
    public var descending: Bool

    /// The objectId order every scan had before `scan_key`.
    public static let objectId = ScanOrder(key: "objectId", descending: false)

    /// Longest cursor accepted, and made: a cursor holds one value of the key, and a scan key
    /// whose values are longer than this can't be paged by.
    static let maxCursorLength = 4096

    /// Parses `scan_key` (`key` or `-key`): a top-level field name, refused with 102 otherwise.
    public init(scanKey text: String?) throws(DataAPIError) {
        guard let text, !text.isEmpty else {
            self = .objectId
            return
        }
        let descending = text.hasPrefix("-")
        let key = descending ? String(text.dropFirst()) : text
        guard Names.isValidKeyPath(key), !key.contains(".") else {
            throw DataAPIError(.invalidQuery, "Invalid scan_key '\(text)'.")
        }
        self.init(key: key, descending: descending)
    }

    /// An order by `key`.
    public init(key: String, descending: Bool) {
        self.key = key
        self.descending = descending
    }

    /// Where a page resumes: after this value of the key (null: missing) and this objectId.
    struct Position: Equatable {
        var value: JSONValue
        var objectId: String
    }

    /// The cursor after `object`: base64 of its objectId in objectId order (as scans always
    /// answered), else base64 of `{"key","desc","value","id"}`.
    func cursor(after object: StoredObject) throws(DataAPIError) -> String {
        let text: String
        if self == .objectId {
            text = object.objectId
        } else {
            let json = object.restJSON()
            let value = json[key] ?? .null
            let position: JSONValue = [
                "key": .string(key), "desc": .bool(descending), "value": value, "id": .string(object.objectId),
            ]
            text = position.jsonString
        }
        let cursor = Data(text.utf8).base64EncodedString()
        guard cursor.utf8.count <= Self.maxCursorLength else {
            throw DataAPIError(.invalidQuery, "The values of scan_key \(key) are too long to page by.")
        }
        return cursor
    }

    /// Reads a cursor this order made; 102 for anything else (another key or direction too).
    func position(_ cursor: String) throws(DataAPIError) -> Position {
        let invalid = DataAPIError(.invalidQuery, "Invalid cursor.")
        guard cursor.utf8.count <= Self.maxCursorLength, let data = Data(base64Encoded: cursor),
            let text = String(data: data, encoding: .utf8)
        else { throw invalid }
        if self == .objectId { return Position(value: .string(text), objectId: text) }
        guard let json = try? JSONValue(parsing: text), json["key"] == .string(key),
            json["desc"] == .bool(descending), case .string(let id)? = json["id"], let value = json["value"]
        else { throw invalid }
        switch value {
        case .null, .int, .double, .string: break
        case _ where value.typeTag == "Date" && value["iso"]?.stringValue.flatMap(ISODate.normalized) != nil: break
        default: throw invalid
        }
        return Position(value: value, objectId: id)
    }

    /// The objects after `position` in this order, as a condition (objectId breaks ties; a
    /// missing or null value sorts first ascending and last descending, as both engines sort).
    func after(_ position: Position) -> QueryPredicate {
        let laterId = QueryPredicate.compare(key: "objectId", .greater, .string(position.objectId))
        let isNull = QueryPredicate.compare(key: key, .equal, .null)
        let isPresent = QueryPredicate.compare(key: key, .notEqual, .null)
        if position.value == .null {
            return descending ? .and([isNull, laterId]) : .or([.and([isNull, laterId]), isPresent])
        }
        let beyond = QueryPredicate.compare(key: key, descending ? .less : .greater, position.value)
        let tied = QueryPredicate.and([.compare(key: key, .equal, position.value), laterId])
        return .or(descending ? [beyond, tied, isNull] : [beyond, tied])
    }

    /// The sort keys of a page.
    var sortKeys: [SortKey] {
        [SortKey(key: key, descending: descending), SortKey(key: "objectId", descending: false)]
    }
}
