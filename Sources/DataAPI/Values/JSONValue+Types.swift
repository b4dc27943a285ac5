public import JSON

// LeanCloud's typed values are JSON objects tagged with `__type`; the JSON module knows nothing of
// them, so what the tag means is read here.
extension JSONValue {
    /// Whether this is an array or an untyped object: a query constant that an Array field
    /// compares as a whole, where other constants are compared with its elements.
    public var isArrayOrPlainObject: Bool {
        switch self {
        case .array: return true
        case .object: return typeTag == nil
        default: return false
        }
    }

    /// The `__type` tag of a typed LeanCloud value (`Date`, `Pointer`, ...), if any.
    public var typeTag: String? {
        if case .object(let o) = self, case .string(let t)? = o["__type"] { return t }
        return nil
    }
}
