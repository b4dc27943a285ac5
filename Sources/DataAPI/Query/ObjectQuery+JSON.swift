public import JSON

extension ObjectQuery {
    /// The query as its REST parameters in JSON (`where` as an object, `order`, `keys` and
    /// `include` as comma lists, `limit`, `skip`, `returnACL`): what a find hook is shown for a
    /// query that arrived in another form (CQL), and what `ObjectQuery(className:query:)` reads
    /// back into the same query.
    ///
    /// - Throws: 102 for a predicate only the data service adds (`readableBy`), which has no
    ///   REST form: a query is shown to hooks before it is authorized, never after.
    public func parameters() throws(DataAPIError) -> [String: JSONValue] {
        var json: [String: JSONValue] = ["limit": .int(Int64(limit))]
        if let predicate { json["where"] = try predicate.whereJSON() }
        if !order.isEmpty { json["order"] = .string(order.map { ($0.descending ? "-" : "") + $0.key }.joined(separator: ",")) }
        if skip > 0 { json["skip"] = .int(Int64(skip)) }
        if let keys {
            let list = keys.selected.sorted() + keys.excluded.sorted().map { "-" + $0 }
            if !list.isEmpty { json["keys"] = .string(list.joined(separator: ",")) }
        }
        if !include.isEmpty { json["include"] = .string(include.joined(separator: ",")) }
        if returnACL { json["returnACL"] = true }
        return json
    }
}

extension QueryPredicate {
    /// The condition as a `where` object, which `QueryPredicate(where:)` parses back into it.
    public func whereJSON() throws(DataAPIError) -> JSONValue {
        switch self {
        case .and(let parts):
            return ["$and": .array(try parts.map { (part) throws(DataAPIError) in try part.whereJSON() })]
        case .or(let parts):
            return ["$or": .array(try parts.map { (part) throws(DataAPIError) in try part.whereJSON() })]
        case .compare(let key, let comparison, let value):
            return [key: [comparison.rawValue: value]]
        case .oneOf(let key, let values, let negated):
            return [key: [negated ? "$nin" : "$in": .array(values)]]
        case .exists(let key, let exists):
            return [key: ["$exists": .bool(exists)]]
        case .containsAll(let key, let values):
            return [key: ["$all": .array(values)]]
        case .size(let key, let count):
            return [key: ["$size": .int(Int64(count))]]
        case .regex(let key, let pattern, let options):
            return [key: ["$regex": .string(pattern), "$options": .string(options)]]
        case .matchesQuery(let key, let subquery, let negated):
            return [key: [negated ? "$notInQuery" : "$inQuery": try subquery.json()]]
        case .matchesKeyInQuery(let key, let subquery, let subKey, let negated):
            return [key: [negated ? "$dontSelect" : "$select": ["query": try subquery.json(), "key": .string(subKey)]]]
        case .relatedTo(let ownerClass, let ownerId, let field):
            let owner: JSONValue = ["__type": "Pointer", "className": .string(ownerClass), "objectId": .string(ownerId)]
            return ["$relatedTo": ["object": owner, "key": .string(field)]]
        case .nearSphere(let key, let point, let maxDistance):
            var near: [String: JSONValue] = ["$nearSphere": point.json]
            if let maxDistance { near["$maxDistanceInRadians"] = .double(maxDistance) }
            return [key: .object(near)]
        case .withinBox(let key, let southwest, let northeast):
            return [key: ["$within": ["$box": [southwest.json, northeast.json]]]]
        case .withinPolygon(let key, let points):
            return [key: ["$geoWithin": ["$polygon": .array(points.map(\.json))]]]
        case .readableBy:
            throw DataAPIError(.invalidQuery, "An authorized query has no REST form.")
        }
    }
}

extension Subquery {
    /// `{"className", "where"}`, as `$inQuery` and `$select` take it.
    fileprivate func json() throws(DataAPIError) -> JSONValue {
        var json: [String: JSONValue] = ["className": .string(className)]
        if let predicate { json["where"] = try predicate.whereJSON() }
        return .object(json)
    }
}

extension GeoPoint {
    /// The point as a typed GeoPoint value.
    fileprivate var json: JSONValue {
        ["__type": "GeoPoint", "latitude": .double(latitude), "longitude": .double(longitude)]
    }
}
