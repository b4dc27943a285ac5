public import JSON

/// The type a class's field holds, recorded on first write so later writes can't change it silently.
public enum FieldType: String, Sendable, Hashable, CaseIterable {
    case string = "String"
    case number = "Number"
    case boolean = "Boolean"
    case date = "Date"
    case bytes = "Bytes"
    case pointer = "Pointer"
    case relation = "Relation"
    case file = "File"
    case geoPoint = "GeoPoint"
    case array = "Array"
    case object = "Object"
    case acl = "ACL"

    /// The type of a stored (already normalized) value; nil for `null`, which fits any field.
    public init?(of value: JSONValue) {
        switch value {
        case .null: return nil
        case .bool: self = .boolean
        case .int, .double: self = .number
        case .string: self = .string
        case .array: self = .array
        case .object:
            switch value.typeTag {
            case "Date": self = .date
            case "Bytes": self = .bytes
            case "Pointer": self = .pointer
            case "Relation": self = .relation
            case "File": self = .file
            case "GeoPoint": self = .geoPoint
            default: self = .object
            }
        }
    }
}
