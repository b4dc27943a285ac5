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

extension FieldType {
    /// The types a schema may declare for a field (`ACL` is the built-in field's alone).
    public static let declarable = allCases.filter { $0 != .acl }

    /// 111 for a field given a type other than the one it holds, in the words of LeanCloud's
    /// type errors.
    static func conflict(_ field: String, recorded: String, given: FieldType) -> DataAPIError {
        DataAPIError(.incorrectType, "Invalid value type for field '\(field)': expected \(recorded), got \(given.rawValue).")
    }
}
