internal import GRDB

extension SQLiteQueryCompiler {
    /// Array, text, subquery, relation and geo conditions.
    func compileExtended(_ predicate: QueryPredicate) -> Fragment {
        switch predicate {
        case .readableBy(let identities):
            // No ACL reads as public; otherwise one of the caller's identities must have read.
            let marks = identities.map { _ in "?" }.joined(separator: ", ")
            return Fragment(
                sql: "(json_type(doc, '$.ACL') IS NULL OR EXISTS (SELECT 1 FROM json_each(doc, '$.ACL') AS a "
                    + "WHERE a.key IN (\(marks)) AND json_extract(a.value, '$.read') = 1))",
                arguments: identities.map { $0.text.databaseValue })
        case .containsAll(let key, let values):
            // As MongoDB (LeanCloud's store) has it, an empty $all matches nothing.
            if values.isEmpty { return Fragment(sql: "0") }
            let parts = values.map { value in
                let element = elementCondition(.equal, value)
                return Fragment(
                    sql: "EXISTS (SELECT 1 FROM json_each(doc, \(Self.path(key))) AS e WHERE \(element.sql))",
                    arguments: element.arguments)
            }
            // A value that isn't an array matches when it equals every constant (MongoDB's
            // `$all` is the `$and` of equalities; the Python SDK's `contains_all` on a Number).
            let equal = compile(.and(values.map { .compare(key: key, .equal, $0) }))
            return Fragment(
                sql: "(json_type(doc, \(Self.path(key))) = 'array' AND "
                    + parts.map { "(\($0.sql))" }.joined(separator: " AND ")
                    + ") OR (json_type(doc, \(Self.path(key))) IS NOT 'array' AND (\(equal.sql)))",
                arguments: parts.flatMap(\.arguments) + equal.arguments)
        case .size(let key, let count):
            return Fragment(
                sql: "json_type(doc, \(Self.path(key))) = 'array' AND json_array_length(doc, \(Self.path(key))) = ?",
                arguments: [count.databaseValue])
        case .regex(let key, let pattern, let options):
            if !key.contains("."), fields[key] == .array {
                // On an array field the expression is matched against each text element.
                return Fragment(
                    sql: "EXISTS (SELECT 1 FROM json_each(doc, \(Self.path(key))) AS e WHERE e.type = 'text' "
                        + "AND fh_regexp(?, ?, e.value))",
                    arguments: [pattern.databaseValue, options.databaseValue])
            }
            return Fragment(
                sql: "json_type(doc, \(Self.path(key))) = 'text' AND fh_regexp(?, ?, \(Self.extract(key)))",
                arguments: [pattern.databaseValue, options.databaseValue])
        case .matchesQuery(let key, let subquery, let negated):
            let inner = subquerySQL(subquery, selecting: "id")
            let pointerId = Self.extract(key, suffix: "objectId")
            let matched: Fragment
            if !key.contains("."), fields[key] == .array {
                matched = Fragment(
                    sql: "EXISTS (SELECT 1 FROM json_each(doc, \(Self.path(key))) AS e WHERE e.type = 'object' "
                        + "AND json_extract(e.value, '$.objectId') IN (\(inner.sql)))",
                    arguments: inner.arguments)
            } else {
                matched = Fragment(
                    sql: "\(Self.extract(key, suffix: "className")) = ? AND \(pointerId) IN (\(inner.sql))",
                    arguments: [subquery.className.databaseValue] + inner.arguments)
            }
            return negated ? Fragment(sql: "(\(matched.sql)) IS NOT 1", arguments: matched.arguments) : matched
        case .matchesKeyInQuery(let key, let subquery, let subKey, let negated):
            let selected = SQLiteQueryCompiler.column(for: subKey) ?? Self.extract(subKey)
            let inner = subquerySQL(subquery, selecting: selected)
            let own = Self.column(for: key) ?? Self.extract(key)
            let matched = Fragment(sql: "\(own) IN (\(inner.sql))", arguments: inner.arguments)
            return negated ? Fragment(sql: "(\(matched.sql)) IS NOT 1", arguments: matched.arguments) : matched
        case .relatedTo(let ownerClass, let ownerId, let field):
            return Fragment(
                sql: "id IN (SELECT target_id FROM relations WHERE owner_class = ? AND field = ? AND owner_id = ?)",
                arguments: [ownerClass.databaseValue, field.databaseValue, ownerId.databaseValue])
        case .nearSphere(let key, let point, let maxDistance):
            let located = "\(Self.extract(key, suffix: "__type")) = 'GeoPoint'"
            guard let maxDistance else { return Fragment(sql: located) }
            return Fragment(
                sql: "\(located) AND \(distanceExpression(key)) <= ?",
                arguments: [point.latitude.databaseValue, point.longitude.databaseValue, maxDistance.databaseValue])
        case .withinBox(let key, let southwest, let northeast):
            return Fragment(
                sql: "\(Self.extract(key, suffix: "__type")) = 'GeoPoint' AND \(Self.extract(key, suffix: "latitude")) "
                    + "BETWEEN ? AND ? AND \(Self.extract(key, suffix: "longitude")) BETWEEN ? AND ?",
                arguments: [
                    southwest.latitude.databaseValue, northeast.latitude.databaseValue,
                    southwest.longitude.databaseValue, northeast.longitude.databaseValue,
                ])
        case .withinPolygon(let key, let vertices):
            let placeholders = Array(repeating: "?, ?", count: vertices.count).joined(separator: ", ")
            return Fragment(
                sql: "\(Self.extract(key, suffix: "__type")) = 'GeoPoint' AND fh_in_polygon("
                    + "\(Self.extract(key, suffix: "latitude")), \(Self.extract(key, suffix: "longitude")), \(placeholders))",
                arguments: vertices.flatMap { [$0.latitude.databaseValue, $0.longitude.databaseValue] })
        case .and, .or, .compare, .oneOf, .exists:
            return compile(predicate)
        }
    }

    /// The distance from the query point (two bound arguments) to the GeoPoint at `key`.
    func distanceExpression(_ key: String) -> String {
        "fh_distance(?, ?, \(Self.extract(key, suffix: "latitude")), \(Self.extract(key, suffix: "longitude")))"
    }

    /// `SELECT <selected> FROM <class table> WHERE <condition>`; a class that doesn't exist
    /// selects nothing.
    private func subquerySQL(_ subquery: Subquery, selecting selected: String) -> Fragment {
        guard let entry = resolve(subquery.className) else { return Fragment(sql: "SELECT NULL WHERE 0") }
        let inner = SQLiteQueryCompiler(className: subquery.className, fields: entry.fields, resolve: resolve)
        let condition = subquery.predicate.map(inner.compile) ?? Fragment(sql: "1")
        return Fragment(
            sql: "SELECT \(selected) FROM \"\(entry.table)\" WHERE \(condition.sql)", arguments: condition.arguments)
    }

    /// The `$nearSphere` that orders results by distance: one at the top level of the condition.
    static func nearSphere(in predicate: QueryPredicate?) -> (key: String, point: GeoPoint)? {
        switch predicate {
        case .nearSphere(let key, let point, _)?: return (key, point)
        case .and(let parts)?:
            for part in parts { if let found = nearSphere(in: part) { return found } }
            return nil
        default: return nil
        }
    }
}
