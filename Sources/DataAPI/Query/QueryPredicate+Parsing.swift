extension QueryPredicate {
    /// Parses a `where` object such as `{"score": {"$gte": 10}, "$or": [...]}`.
    ///
    /// - Throws: error 102 for an unknown operator, a malformed operand or an invalid key.
    public init(where condition: JSONValue) throws(DataAPIError) {
        guard case .object(let members) = condition else {
            throw DataAPIError(.invalidQuery, "Invalid where: expected a JSON object.")
        }
        var parts: [QueryPredicate] = []
        for key in members.keys.sorted() {
            let value = members[key]!
            switch key {
            case "$and", "$or":
                guard case .array(let clauses) = value else {
                    throw DataAPIError(.invalidQuery, "\(key) takes an array of conditions.")
                }
                let parsed = try clauses.map { (clause) throws(DataAPIError) in try QueryPredicate(where: clause) }
                parts.append(key == "$and" ? .and(parsed) : .or(parsed))
            default:
                guard Names.isValidKeyPath(key) else {
                    throw DataAPIError(.invalidQuery, "Invalid key '\(key)' in where.")
                }
                parts.append(try Self.fieldCondition(key: key, value))
            }
        }
        self = parts.count == 1 ? parts[0] : .and(parts)
    }

    private static func fieldCondition(key: String, _ value: JSONValue) throws(DataAPIError) -> QueryPredicate {
        guard case .object(let members) = value, let firstKey = members.keys.first, firstKey.hasPrefix("$") else {
            return .compare(key: key, .equal, try operand(value, key: key))
        }
        var parts: [QueryPredicate] = []
        for (op, operandValue) in members.sorted(by: { $0.key < $1.key }) {
            switch op {
            case "$eq", "$ne", "$lt", "$lte", "$gt", "$gte":
                parts.append(.compare(key: key, ComparisonOperator(rawValue: op)!, try operand(operandValue, key: key)))
            case "$in", "$nin":
                guard case .array(let list) = operandValue else {
                    throw DataAPIError(.invalidQuery, "\(op) of \(key) takes an array.")
                }
                let values = try list.map { (element) throws(DataAPIError) in try operand(element, key: key) }
                parts.append(.oneOf(key: key, values, negated: op == "$nin"))
            case "$exists":
                guard case .bool(let flag) = operandValue else {
                    throw DataAPIError(.invalidQuery, "$exists of \(key) takes a boolean.")
                }
                parts.append(.exists(key: key, flag))
            default:
                throw DataAPIError(.invalidQuery, "Unknown operator \(op) on \(key).")
            }
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    /// A constant in a condition, in its stored form (dates canonical, objects as pointers).
    private static func operand(_ value: JSONValue, key: String) throws(DataAPIError) -> JSONValue {
        switch value.typeTag {
        case "Date":
            guard case .string(let iso)? = value["iso"], let canonical = ISODate.normalized(iso) else {
                throw DataAPIError(.invalidQuery, "Invalid Date in the condition on \(key).")
            }
            return ["__type": "Date", "iso": .string(canonical)]
        case "Pointer", "Object":
            guard case .string(let className)? = value["className"], case .string(let id)? = value["objectId"] else {
                throw DataAPIError(.invalidQuery, "Invalid Pointer in the condition on \(key).")
            }
            return ["__type": "Pointer", "className": .string(className), "objectId": .string(id)]
        default:
            if case .object(let members) = value, members.keys.contains(where: { $0.hasPrefix("$") }) {
                throw DataAPIError(.invalidQuery, "Invalid operand for \(key).")
            }
            return value
        }
    }
}
