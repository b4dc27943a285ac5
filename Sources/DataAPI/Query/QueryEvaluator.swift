import JSON

/// Evaluates a `QueryPredicate` and sort keys on objects in memory, with the same semantics as
/// the SQL engines: what a query means is defined once, here, and the property tests hold each
/// engine to it.
///
/// It covers every predicate that needs no other class (subqueries and relations are answered
/// by `membership`, which the caller supplies).
package struct QueryEvaluator: Sendable {
    /// The queried class's recorded field types: as in SQL, equality on an Array field means
    /// "contains", and a constant of another type than the field's matches nothing.
    public var fields: [String: FieldType]

    /// Creates an evaluator for a class with these field types.
    public init(fields: [String: FieldType]) {
        self.fields = fields
    }

    /// Whether `object` satisfies `predicate`.
    public func matches(_ object: StoredObject, _ predicate: QueryPredicate) -> Bool {
        switch predicate {
        case .readableBy(let identities): return ACLCheck.allows(object, .read, to: identities)
        case .and(let parts): return parts.allSatisfy { matches(object, $0) }
        case .or(let parts): return parts.contains { matches(object, $0) }
        case .exists(let key, let flag):
            if builtIn(object, key) != nil { return flag }
            return (value(object, key) != nil) == flag
        case .compare(let key, let op, let constant):
            return compare(object, key, op, constant)
        case .oneOf(let key, let constants, let negated):
            let any = constants.contains { compare(object, key, .equal, $0) }
            return negated ? !any : any
        case .containsAll(let key, let constants):
            guard !constants.isEmpty else { return false }
            // Not an array: `$all` is the `$and` of equalities, as in MongoDB.
            guard case .array(let elements)? = value(object, key) else {
                return constants.allSatisfy { compare(object, key, .equal, $0) }
            }
            return constants.allSatisfy { c in elements.contains { element($0, .equal, c) } }
        case .size(let key, let count):
            guard case .array(let elements)? = value(object, key) else { return false }
            return elements.count == count
        case .regex(let key, let pattern, let options):
            let stored = value(object, key)
            if !key.contains("."), fields[key] == .array {
                // Mirrors json_each: an array's text elements, or a stored scalar itself.
                let elements: [JSONValue] = stored?.arrayValue ?? stored.map { [$0] } ?? []
                return elements.contains { element in
                    guard case .string(let text) = element else { return false }
                    return RegexCache.shared.matchesWithinBudget(pattern, options: options, text)
                }
            }
            guard case .string(let text)? = stored else { return false }
            return RegexCache.shared.matchesWithinBudget(pattern, options: options, text)
        case .nearSphere(let key, let point, let maxDistance):
            guard let located = geoPoint(value(object, key)) else { return false }
            return maxDistance.map { located.distance(to: point) <= $0 } ?? true
        case .withinBox(let key, let southwest, let northeast):
            guard let p = geoPoint(value(object, key)) else { return false }
            return (southwest.latitude...northeast.latitude).contains(p.latitude)
                && (southwest.longitude...northeast.longitude).contains(p.longitude)
        case .withinPolygon(let key, let polygon):
            return geoPoint(value(object, key))?.isInside(polygon) ?? false
        case .matchesQuery, .matchesKeyInQuery, .relatedTo:
            return false
        }
    }

    /// `objects` (in insertion order) sorted as the engines sort: by each key, missing values
    /// first when ascending, ties in insertion order.
    public func sorted(_ objects: [StoredObject], by keys: [SortKey]) -> [StoredObject] {
        let indexed = Array(objects.enumerated())
        return indexed.sorted { a, b in
            for key in keys {
                let x = sortValue(a.element, key.key)
                let y = sortValue(b.element, key.key)
                if x == y { continue }
                return key.descending ? y < x : x < y
            }
            return a.offset < b.offset
        }.map(\.element)
    }

    // MARK: - Values

    private func builtIn(_ object: StoredObject, _ key: String) -> String? {
        switch key {
        case "objectId": return object.objectId
        case "createdAt": return object.createdAt
        case "updatedAt": return object.updatedAt
        default: return nil
        }
    }

    /// The value at a key path; nil when any step is missing or not an object.
    private func value(_ object: StoredObject, _ key: String) -> JSONValue? {
        var current: JSONValue? = .object(object.fields)
        for part in key.split(separator: ".") {
            guard case .object(let members)? = current else { return nil }
            current = members[String(part)]
        }
        return current
    }

    private func geoPoint(_ value: JSONValue?) -> GeoPoint? {
        guard let value, value.typeTag == "GeoPoint", let lat = value["latitude"]?.doubleValue,
            let lng = value["longitude"]?.doubleValue
        else { return nil }
        return GeoPoint(latitude: lat, longitude: lng)
    }

    private func compare(_ object: StoredObject, _ key: String, _ op: ComparisonOperator, _ constant: JSONValue) -> Bool {
        if let text = builtIn(object, key) {
            let operand: String?
            switch constant {
            case .string(let s): operand = key == "objectId" ? s : ISODate.normalized(s)
            case _ where constant.typeTag == "Date": operand = constant["iso"]?.stringValue
            default: operand = nil
            }
            guard let operand else { return op == .notEqual }
            return Self.holds(op, Self.textOrder(text, operand))
        }
        let recorded = key.contains(".") ? nil : fields[key]
        let stored = value(object, key)
        if recorded == .array, !constant.isArrayOrPlainObject {
            // Mirrors json_each: an array yields its elements, a scalar (null) itself, nothing nothing.
            let elements: [JSONValue]
            switch stored {
            case .array(let items)?: elements = items
            case let scalar?: elements = [scalar]
            case nil: elements = []
            }
            if op == .notEqual { return !elements.contains { element($0, .equal, constant) } }
            return elements.contains { element($0, op, constant) }
        }
        if op == .notEqual { return !valueHolds(stored, recorded, .equal, constant) }
        return valueHolds(stored, recorded, op, constant)
    }

    private func valueHolds(_ stored: JSONValue?, _ recorded: FieldType?, _ op: ComparisonOperator, _ constant: JSONValue) -> Bool {
        switch constant {
        case .null:
            return op == .equal && (stored == nil || stored == .null)
        case .bool(let b):
            return op == .equal && stored == .bool(b)
        case .int, .double:
            if let recorded, recorded != .number { return false }
            guard let x = stored, x.isNumber else { return false }
            return Self.holds(op, Self.numberOrder(x, constant))
        case .string(let s):
            if let recorded, recorded != .string { return false }
            guard case .string(let x)? = stored else { return false }
            return Self.holds(op, Self.textOrder(x, s))
        default:
            break
        }
        switch constant.typeTag {
        case "Date":
            if let recorded, recorded != .date { return false }
            guard let stored, stored.typeTag == "Date", let x = stored["iso"]?.stringValue,
                let y = constant["iso"]?.stringValue
            else { return false }
            return Self.holds(op, Self.textOrder(x, y))
        case "Pointer":
            guard op == .equal, recorded == nil || recorded == .pointer, let stored else { return false }
            return stored["objectId"] == constant["objectId"] && stored["className"] == constant["className"]
                && stored["objectId"] != nil
        default:
            guard op == .equal, let stored else { return false }
            let sameKind: Bool
            switch (stored, constant) {
            case (.array, .array): sameKind = true
            case (.object, .object): sameKind = true
            default: sameKind = false
            }
            return sameKind && stored.jsonString == constant.jsonString
        }
    }

    /// The condition on one element of an array field.
    private func element(_ e: JSONValue, _ op: ComparisonOperator, _ constant: JSONValue) -> Bool {
        switch constant {
        case .null: return op == .equal && e == .null
        case .bool(let b): return op == .equal && e == .bool(b)
        case .int, .double: return e.isNumber && Self.holds(op, Self.numberOrder(e, constant))
        case .string(let s):
            guard case .string(let x) = e else { return false }
            return Self.holds(op, Self.textOrder(x, s))
        default:
            if constant.typeTag == "Date" {
                guard e.typeTag == "Date", let x = e["iso"]?.stringValue, let y = constant["iso"]?.stringValue else {
                    return false
                }
                return Self.holds(op, Self.textOrder(x, y))
            }
            guard op == .equal, case .object = e else { return false }
            return e.jsonString == constant.jsonString
        }
    }

    // MARK: - Ordering

    /// SQLite's order of values: NULL, then numbers (booleans are 0 and 1), then text (JSON
    /// objects and arrays as their text), text by UTF-8 bytes.
    enum SortValue: Comparable {
        case null
        case number(Double)
        case text([UInt8])

        static func < (a: SortValue, b: SortValue) -> Bool {
            switch (a, b) {
            case (.null, .null): return false
            case (.null, _): return true
            case (_, .null): return false
            case (.number(let x), .number(let y)): return x < y
            case (.number, .text): return true
            case (.text, .number): return false
            case (.text(let x), .text(let y)): return x.lexicographicallyPrecedes(y)
            }
        }
    }

    func sortValue(_ object: StoredObject, _ key: String) -> SortValue {
        if let text = builtIn(object, key) { return .text(Array(text.utf8)) }
        var stored = value(object, key)
        if !key.contains("."), fields[key] == .date { stored = stored?["iso"] }
        switch stored {
        case nil, .null?: return .null
        case .bool(let b)?: return .number(b ? 1 : 0)
        case .int(let i)?: return .number(Double(i))
        case .double(let d)?: return .number(d)
        case .string(let s)?: return .text(Array(s.utf8))
        case let other?: return .text(other.jsonBytes)
        }
    }

    private static func holds(_ op: ComparisonOperator, _ order: Int) -> Bool {
        switch op {
        case .equal: return order == 0
        case .notEqual: return order != 0
        case .less: return order < 0
        case .lessOrEqual: return order <= 0
        case .greater: return order > 0
        case .greaterOrEqual: return order >= 0
        }
    }

    private static func textOrder(_ a: String, _ b: String) -> Int {
        if a == b { return 0 }
        return Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? -1 : 1
    }

    private static func numberOrder(_ a: JSONValue, _ b: JSONValue) -> Int {
        if case .int(let x) = a, case .int(let y) = b { return x == y ? 0 : (x < y ? -1 : 1) }
        let x = a.doubleValue ?? 0
        let y = b.doubleValue ?? 0
        return x == y ? 0 : (x < y ? -1 : 1)
    }
}
