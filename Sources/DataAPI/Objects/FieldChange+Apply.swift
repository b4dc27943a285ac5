package import JSON

extension FieldChange {
    /// The field's value after this change, given its current value; nil means the field is removed.
    ///
    /// - Throws: error 111 when the operation does not fit the current value's type.
    public func applied(to current: JSONValue?, field: String) throws(DataAPIError) -> JSONValue? {
        switch self {
        case .set(let value):
            return value
        case .delete:
            return nil
        case .increment(let amount):
            let base = current ?? .int(0)
            switch (base, amount) {
            case (.null, _): return amount
            case (.int(let a), .int(let b)):
                let (sum, overflow) = a.addingReportingOverflow(b)
                return overflow ? .double(Double(a) + Double(b)) : .int(sum)
            default:
                guard let a = base.doubleValue, let b = amount.doubleValue else {
                    // LeanCloud's wording, which the PHP SDK's suite checks (code 111).
                    throw DataAPIError(.incorrectType, "Invalid value type for field '\(field)': Increment needs a Number.")
                }
                guard (a + b).isFinite else {
                    throw DataAPIError(.incorrectType, "Incrementing \(field) would overflow.")
                }
                return .double(a + b)
            }
        case .add(let elements):
            return .array(try array(current, field) + elements)
        case .addUnique(let elements):
            var result = try array(current, field)
            for element in elements where !result.contains(element) { result.append(element) }
            return .array(result)
        case .remove(let elements):
            return .array(try array(current, field).filter { !elements.contains($0) })
        case .addRelation(let className, _), .removeRelation(let className, _):
            if let current, current != .null {
                guard current.typeTag == "Relation", current["className"]?.stringValue == className else {
                    throw DataAPIError(.incorrectType, "\(field) is not a relation to \(className).")
                }
            }
            return ["__type": "Relation", "className": .string(className)]
        case .bitAnd(let operand): return .int(try integer(current, field) & operand)
        case .bitOr(let operand): return .int(try integer(current, field) | operand)
        case .bitXor(let operand): return .int(try integer(current, field) ^ operand)
        case .batch(let changes):
            var value = current
            for change in changes { value = try change.applied(to: value, field: field) }
            return value
        }
    }

    private func array(_ current: JSONValue?, _ field: String) throws(DataAPIError) -> [JSONValue] {
        switch current {
        case nil, .null?: return []
        case .array(let elements)?: return elements
        default: throw DataAPIError(.incorrectType, "Can't apply an array operation to \(field): it is not an array.")
        }
    }

    private func integer(_ current: JSONValue?, _ field: String) throws(DataAPIError) -> Int64 {
        switch current {
        case nil, .null?: return 0
        case .int(let i)?: return i
        default: throw DataAPIError(.incorrectType, "Can't apply a bit operation to \(field): it is not an integer.")
        }
    }
}
