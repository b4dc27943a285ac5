public import JSON

extension QueryPredicate {
    /// Parses the text of a `where` parameter; malformed JSON is an invalid query (102).
    public init(whereText text: String) throws(DataAPIError) {
        let condition: JSONValue
        do {
            condition = try JSONValue(parsing: text)
        } catch {
            throw DataAPIError(.invalidQuery, "Invalid where: it is not valid JSON.")
        }
        try self.init(where: condition)
    }

    /// Parses a `where` object such as `{"score": {"$gte": 10}, "$or": [...]}`.
    ///
    /// - Throws: error 102 for an unknown operator, a malformed operand or an invalid key, for
    ///   nesting past `maxNesting`, or a condition past `maxSize` in all.
    public init(where condition: JSONValue) throws(DataAPIError) {
        try self.init(clauses: condition)
        // Once, over the whole tree: its clauses and subqueries are parsed by `init(clauses:)`.
        guard nesting <= Self.maxNesting else {
            throw DataAPIError(
                .invalidQuery, "The where nests too deeply: at most \(Self.maxNesting) levels, a subquery counting \(Self.subqueryNesting).")
        }
        try checkSize()
    }

    /// How deeply a `where` may nest, in the levels `nesting` counts. Every engine turns nesting
    /// into nested SQL, and SQLite's parser refuses past about a hundred levels of it (its stack
    /// of 100; ten nested subqueries, or a hundred of `$or`, did): refused here, that is a 102,
    /// not a 500, and leaves room for the read restriction put into each level.
    public static let maxNesting = 40
    /// What one subquery (`$inQuery`, `$select` and their negations) counts: it is a whole nested
    /// SELECT (4 of them nest within the limit).
    public static let subqueryNesting = 8

    /// The nesting of this predicate: 1 for a condition, 1 more for each `$and`/`$or` around it,
    /// `subqueryNesting` more for each subquery around it.
    var nesting: Int {
        switch self {
        case .and(let parts), .or(let parts): return 1 + (parts.map(\.nesting).max() ?? 0)
        case .matchesQuery(_, let subquery, _), .matchesKeyInQuery(_, let subquery, _, _):
            return Self.subqueryNesting + (subquery.predicate?.nesting ?? 0)
        default: return 1
        }
    }

    /// Parses a `where` object, without the nesting check (done once, on the whole).
    private init(clauses condition: JSONValue) throws(DataAPIError) {
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
                let parsed = try clauses.map { (clause) throws(DataAPIError) in try QueryPredicate(clauses: clause) }
                parts.append(key == "$and" ? .and(parsed) : .or(parsed))
            case "$relatedTo":
                guard case .string(let field)? = value["key"], let object = value["object"],
                    case .string(let ownerClass)? = object["className"], case .string(let ownerId)? = object["objectId"]
                else {
                    throw DataAPIError(.invalidQuery, "$relatedTo takes {\"object\": <Pointer>, \"key\": <field>}.")
                }
                parts.append(.relatedTo(ownerClass: ownerClass, ownerId: ownerId, field: field))
            default:
                guard !key.hasPrefix("$") else { throw DataAPIError(.invalidQuery, "Unknown operator \(key).") }
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
            case "$in", "$nin", "$all":
                guard case .array(let list) = operandValue, list.count <= maxListValues else {
                    throw DataAPIError(.invalidQuery, "\(op) of \(key) takes an array of at most \(maxListValues) values.")
                }
                let values = try list.map { (element) throws(DataAPIError) in try operand(element, key: key) }
                parts.append(op == "$all" ? .containsAll(key: key, values) : .oneOf(key: key, values, negated: op == "$nin"))
            case "$exists":
                guard case .bool(let flag) = operandValue else {
                    throw DataAPIError(.invalidQuery, "$exists of \(key) takes a boolean.")
                }
                parts.append(.exists(key: key, flag))
            case "$size":
                guard case .int(let count) = operandValue, count >= 0 else {
                    throw DataAPIError(.invalidQuery, "$size of \(key) takes a non-negative integer.")
                }
                parts.append(.size(key: key, Int(count)))
            case "$regex":
                guard case .string(let pattern) = operandValue else {
                    throw DataAPIError(.invalidQuery, "$regex of \(key) takes a string.")
                }
                let optionsValue = members["$options"] ?? ""
                guard case .string(let options) = optionsValue, options.allSatisfy({ "imsx".contains($0) }) else {
                    throw DataAPIError(.invalidQuery, "$options of \(key) may only hold i, m, s and x.")
                }
                guard RegexCache.shared.regex(pattern, options: options) != nil else {
                    throw DataAPIError(.invalidQuery, "Invalid regular expression for \(key).")
                }
                parts.append(.regex(key: key, pattern: pattern, options: options))
            case "$options", "$maxDistance", "$maxDistanceInRadians", "$maxDistanceInMiles", "$maxDistanceInKilometers":
                // Modifiers of $regex and $nearSphere, read there.
                guard members["$regex"] != nil || members["$nearSphere"] != nil else {
                    throw DataAPIError(.invalidQuery, "\(op) of \(key) needs \(op == "$options" ? "$regex" : "$nearSphere").")
                }
            case "$inQuery", "$notInQuery":
                parts.append(.matchesQuery(key: key, try subquery(operandValue, op: op), negated: op == "$notInQuery"))
            case "$select", "$dontSelect":
                guard case .string(let subKey)? = operandValue["key"], Names.isValidKeyPath(subKey),
                    let query = operandValue["query"]
                else {
                    throw DataAPIError(.invalidQuery, "\(op) of \(key) takes {\"query\": {...}, \"key\": <field>}.")
                }
                parts.append(
                    .matchesKeyInQuery(key: key, try subquery(query, op: op), subKey: subKey, negated: op == "$dontSelect"))
            case "$nearSphere":
                let point = try geoPoint(operandValue, key: key)
                parts.append(.nearSphere(key: key, point, maxDistance: try maxDistance(members, key: key)))
            case "$within", "$geoWithin":
                if case .array(let corners)? = operandValue["$box"], corners.count == 2 {
                    let southwest = try geoPoint(corners[0], key: key)
                    let northeast = try geoPoint(corners[1], key: key)
                    parts.append(.withinBox(key: key, southwest: southwest, northeast: northeast))
                } else if case .array(let vertices)? = operandValue["$polygon"], (3...60).contains(vertices.count) {
                    // At most 60 vertices: each is two arguments of one SQL function call.
                    let points = try vertices.map { (vertex) throws(DataAPIError) in try geoPoint(vertex, key: key) }
                    parts.append(.withinPolygon(key: key, points))
                } else {
                    throw DataAPIError(.invalidQuery, "\(op) of \(key) takes {\"$box\": [sw, ne]} or {\"$polygon\": [3 to 60 points]}.")
                }
            default:
                throw DataAPIError(.invalidQuery, "Unknown operator \(op) on \(key).")
            }
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private static func subquery(_ value: JSONValue, op: String) throws(DataAPIError) -> Subquery {
        guard case .string(let className)? = value["className"], Names.isValidClassName(className) else {
            throw DataAPIError(.invalidQuery, "\(op) needs a className.")
        }
        let predicate = try value["where"].map { (condition) throws(DataAPIError) in try QueryPredicate(clauses: condition) }
        return Subquery(className: className, predicate: predicate)
    }

    private static func geoPoint(_ value: JSONValue, key: String) throws(DataAPIError) -> GeoPoint {
        let latitude: Double?
        let longitude: Double?
        if case .array(let pair) = value, pair.count == 2 {
            // Parse's polygon vertices may be [latitude, longitude] pairs.
            latitude = pair[0].doubleValue
            longitude = pair[1].doubleValue
        } else {
            latitude = value["latitude"]?.doubleValue
            longitude = value["longitude"]?.doubleValue
        }
        guard let latitude, let longitude else {
            throw DataAPIError(.invalidQuery, "Invalid GeoPoint in the condition on \(key).")
        }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw DataAPIError(.invalidGeoPoint, "Invalid GeoPoint in the condition on \(key): out of range.")
        }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }

    /// `$maxDistance*` in radians (the Earth's mean radius is 6371 km, 3958.8 miles).
    private static func maxDistance(_ members: [String: JSONValue], key: String) throws(DataAPIError) -> Double? {
        let units: [(String, Double)] = [
            ("$maxDistance", 1), ("$maxDistanceInRadians", 1), ("$maxDistanceInKilometers", 1 / 6371.0),
            ("$maxDistanceInMiles", 1 / 3958.8),
        ]
        for (name, factor) in units {
            guard let value = members[name] else { continue }
            guard let number = value.doubleValue, number >= 0 else {
                throw DataAPIError(.invalidQuery, "\(name) of \(key) takes a non-negative number.")
            }
            return number * factor
        }
        return nil
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
            // Files are stored as File values (see ValueNormalizer), whichever way a client refers to them.
            if className == "_File" { return ["__type": "File", "objectId": .string(id)] }
            return ["__type": "Pointer", "className": .string(className), "objectId": .string(id)]
        case "File":
            guard case .string(let id)? = value["objectId"] ?? value["id"] else {
                throw DataAPIError(.invalidQuery, "Invalid File in the condition on \(key).")
            }
            return ["__type": "File", "objectId": .string(id)]
        case "GeoPoint":
            _ = try geoPoint(value, key: key)  // checks the coordinates are numbers in range
            return ["__type": "GeoPoint", "latitude": value["latitude"]!, "longitude": value["longitude"]!]

        default:
            if case .object(let members) = value, members.keys.contains(where: { $0.hasPrefix("$") }) {
                throw DataAPIError(.invalidQuery, "Invalid operand for \(key).")
            }
            return value
        }
    }
}
