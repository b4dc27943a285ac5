internal import GRDB
import JSON

/// Translates a `QueryPredicate` into an SQL condition over a class table (`id`, `created_at`,
/// `updated_at`, `doc`).
///
/// The class schema decides the form: a field recorded as Number compiles to a bare
/// `json_extract(doc,'$."f"') < ?`, which an expression index can serve; a field of unknown type
/// (a nested path) gets a `json_type` guard so a type mismatch matches nothing rather than
/// comparing a number with text. Array fields compare their elements (`{"tags": "a"}` means
/// "contains a"), as the SDKs expect.
struct SQLiteQueryCompiler {
    /// The queried class.
    var className: String
    /// Its recorded field types.
    var fields: [String: FieldType]
    /// Other classes' tables and schemas, for subqueries.
    var resolve: (String) -> SQLiteStorage.ClassEntry?

    /// An SQL condition and the values bound to its placeholders.
    struct Fragment {
        var sql: String
        var arguments: [DatabaseValue] = []
    }

    func compile(_ predicate: QueryPredicate) -> Fragment {
        switch predicate {
        case .and(let parts):
            if parts.isEmpty { return Fragment(sql: "1") }
            return join(parts.map(compile), with: " AND ")
        case .or(let parts):
            if parts.isEmpty { return Fragment(sql: "0") }
            return join(parts.map(compile), with: " OR ")
        case .exists(let key, let flag):
            if let column = Self.column(for: key) { return Fragment(sql: flag ? "\(column) IS NOT NULL" : "0") }
            return Fragment(sql: "json_type(doc, \(Self.path(key))) IS \(flag ? "NOT NULL" : "NULL")")
        case .compare(let key, let op, let value):
            return compare(key: key, op, value)
        case .oneOf(let key, let values, let negated):
            let any = join(values.map { compare(key: key, .equal, $0) }, with: " OR ", empty: "0")
            return negated ? Fragment(sql: "(\(any.sql)) IS NOT 1", arguments: any.arguments) : any
        default:
            return compileExtended(predicate)
        }
    }

    /// Joins conditions as a balanced tree: SQLite limits expression depth to 1000, and a flat
    /// chain of 1000 ORs (a long `$in`) would be that deep.
    private func join(_ fragments: [Fragment], with separator: String, empty: String = "1") -> Fragment {
        if fragments.isEmpty { return Fragment(sql: empty) }
        if fragments.count <= 8 {
            return Fragment(
                sql: fragments.map { "(\($0.sql))" }.joined(separator: separator),
                arguments: fragments.flatMap(\.arguments))
        }
        let middle = fragments.count / 2
        return join(
            [join(Array(fragments[..<middle]), with: separator), join(Array(fragments[middle...]), with: separator)],
            with: separator)
    }

    /// The column that holds a built-in field.
    static func column(for key: String) -> String? {
        switch key {
        case "objectId": return "id"
        case "createdAt": return "created_at"
        case "updatedAt": return "updated_at"
        default: return nil
        }
    }

    /// The SQL literal of the JSON path of a (validated) key path: `'$."a"."b"'`.
    static func path(_ key: String, suffix: String? = nil) -> String {
        var parts = key.split(separator: ".").map { "\"\($0)\"" }
        if let suffix { parts.append("\"\(suffix)\"") }
        return "'$." + parts.joined(separator: ".") + "'"
    }

    static func extract(_ key: String, suffix: String? = nil) -> String {
        "json_extract(doc, \(path(key, suffix: suffix)))"
    }

    private func compare(key: String, _ op: ComparisonOperator, _ value: JSONValue) -> Fragment {
        let sqlOp = Self.sqlOperator(op)
        if let column = Self.column(for: key) {
            // Built-ins hold text: an id, or canonical ISO dates.
            let text: String?
            switch value {
            case .string(let s): text = key == "objectId" ? s : ISODate.normalized(s)
            case _ where value.typeTag == "Date": text = value["iso"]?.stringValue
            default: text = nil
            }
            guard let text else { return Fragment(sql: op == .notEqual ? "1" : "0") }
            return Fragment(sql: "\(column) \(sqlOp) ?", arguments: [text.databaseValue])
        }
        let recorded = key.contains(".") ? nil : fields[key]
        if recorded == .relation, value.typeTag == "Pointer", op == .equal || op == .notEqual {
            // Owners whose Relation holds this object.
            // The Relation's own class must be the pointer's: ids are only unique within a class.
            let owned = Fragment(
                sql: "\(Self.extract(key, suffix: "className")) = ? AND "
                    + "id IN (SELECT owner_id FROM relations WHERE owner_class = ? AND field = ? AND target_id = ?)",
                arguments: [
                    Self.text(value["className"]?.stringValue ?? ""), Self.text(className), Self.text(key),
                    Self.text(value["objectId"]?.stringValue ?? ""),
                ])
            return op == .equal ? owned : Fragment(sql: "(\(owned.sql)) IS NOT 1", arguments: owned.arguments)
        }
        if recorded == .array, !value.isArrayOrPlainObject {
            // Compare against the elements: equality means "contains".
            let element = elementCondition(op == .notEqual ? .equal : op, value)
            let exists = Fragment(
                sql: "EXISTS (SELECT 1 FROM json_each(doc, \(Self.path(key))) AS e WHERE \(element.sql))",
                arguments: element.arguments)
            return op == .notEqual ? Fragment(sql: "(\(exists.sql)) IS NOT 1", arguments: exists.arguments) : exists
        }
        let positive = op == .notEqual ? valueCondition(key: key, recorded: recorded, .equal, value)
            : valueCondition(key: key, recorded: recorded, op, value)
        if op == .notEqual {
            // $ne also matches objects that lack the field (NULL), as the SDKs' backends do.
            return Fragment(sql: "(\(positive.sql)) IS NOT 1", arguments: positive.arguments)
        }
        return positive
    }

    /// A condition on one stored field (not an array's elements).
    private func valueCondition(
        key: String, recorded: FieldType?, _ op: ComparisonOperator, _ value: JSONValue
    ) -> Fragment {
        let sqlOp = Self.sqlOperator(op)
        let expr = Self.extract(key)
        let typeExpr = "json_type(doc, \(Self.path(key)))"
        switch value {
        case .null:
            guard op == .equal else { return Fragment(sql: "0") }
            return Fragment(sql: "\(typeExpr) IS NULL OR \(typeExpr) = 'null'")
        case .bool(let b):
            guard op == .equal else { return Fragment(sql: "0") }
            return Fragment(sql: "\(typeExpr) = '\(b ? "true" : "false")'")
        case .int, .double:
            let bound: DatabaseValue = value.intValue.map { $0.databaseValue } ?? value.doubleValue!.databaseValue
            if recorded == .number { return Fragment(sql: "\(expr) \(sqlOp) ?", arguments: [bound]) }
            if recorded != nil { return Fragment(sql: "0") }
            return Fragment(sql: "\(typeExpr) IN ('integer', 'real') AND \(expr) \(sqlOp) ?", arguments: [bound])
        case .string(let s):
            if recorded == .string { return Fragment(sql: "\(expr) \(sqlOp) ?", arguments: [s.databaseValue]) }
            if recorded != nil { return Fragment(sql: "0") }
            return Fragment(sql: "\(typeExpr) = 'text' AND \(expr) \(sqlOp) ?", arguments: [s.databaseValue])
        default:
            break
        }
        switch value.typeTag {
        case "Date":
            let iso = value["iso"]?.stringValue ?? ""
            let isoExpr = Self.extract(key, suffix: "iso")
            if recorded == .date { return Fragment(sql: "\(isoExpr) \(sqlOp) ?", arguments: [iso.databaseValue]) }
            if recorded != nil { return Fragment(sql: "0") }
            return Fragment(
                sql: "\(Self.extract(key, suffix: "__type")) = 'Date' AND \(isoExpr) \(sqlOp) ?",
                arguments: [iso.databaseValue])
        case "Pointer":
            guard op == .equal, recorded == nil || recorded == .pointer else { return Fragment(sql: "0") }
            return Fragment(
                sql: "\(Self.extract(key, suffix: "objectId")) = ? AND \(Self.extract(key, suffix: "className")) = ?",
                arguments: [(value["objectId"]?.stringValue ?? "").databaseValue,
                    (value["className"]?.stringValue ?? "").databaseValue])
        default:
            // Arrays, plain objects and other typed values compare as canonical JSON text.
            guard op == .equal else { return Fragment(sql: "0") }
            let kind = value.arrayValue != nil ? "array" : "object"
            return Fragment(
                sql: "\(typeExpr) = '\(kind)' AND \(expr) = ?", arguments: [Self.text(value.jsonString)])
        }
    }

    /// A condition on the current element `e` of `json_each` over an array field.
    func elementCondition(_ op: ComparisonOperator, _ value: JSONValue) -> Fragment {
        let sqlOp = Self.sqlOperator(op)
        switch value {
        case .null: return Fragment(sql: op == .equal ? "e.type = 'null'" : "0")
        case .bool(let b): return Fragment(sql: op == .equal ? "e.type = '\(b ? "true" : "false")'" : "0")
        case .int, .double:
            let bound: DatabaseValue = value.intValue.map { $0.databaseValue } ?? value.doubleValue!.databaseValue
            return Fragment(sql: "e.type IN ('integer', 'real') AND e.value \(sqlOp) ?", arguments: [bound])
        case .string(let s):
            return Fragment(sql: "e.type = 'text' AND e.value \(sqlOp) ?", arguments: [s.databaseValue])
        default:
            if value.typeTag == "Date" {
                return Fragment(
                    sql: "e.type = 'object' AND json_extract(e.value, '$.__type') = 'Date' AND json_extract(e.value, '$.iso') \(sqlOp) ?",
                    arguments: [(value["iso"]?.stringValue ?? "").databaseValue])
            }
            guard op == .equal else { return Fragment(sql: "0") }
            return Fragment(sql: "e.type = 'object' AND e.value = ?", arguments: [Self.text(value.jsonString)])
        }
    }

    static func text(_ string: String) -> DatabaseValue { string.databaseValue }

    private static func sqlOperator(_ op: ComparisonOperator) -> String {
        switch op {
        case .equal: return "="
        case .notEqual: return "!="
        case .less: return "<"
        case .lessOrEqual: return "<="
        case .greater: return ">"
        case .greaterOrEqual: return ">="
        }
    }

    /// The ORDER BY clause of a query; rowid (insertion order) breaks ties and orders by default.
    func orderClause(_ keys: [SortKey], predicate: QueryPredicate? = nil) -> Fragment {
        if keys.isEmpty, let near = Self.nearSphere(in: predicate) {
            return Fragment(
                sql: "ORDER BY \(distanceExpression(near.key)) ASC, rowid ASC",
                arguments: [near.point.latitude.databaseValue, near.point.longitude.databaseValue])
        }
        var terms: [String] = keys.map(orderTerm)
        terms.append("rowid ASC")
        return Fragment(sql: "ORDER BY " + terms.joined(separator: ", "))
    }

    /// The ORDER BY term of one key (what a search's order shares with a find's).
    func orderTerm(_ key: SortKey) -> String {
        let expr: String
        if let column = Self.column(for: key.key) {
            expr = column
        } else if !key.key.contains("."), fields[key.key] == .date {
            expr = Self.extract(key.key, suffix: "iso")
        } else {
            expr = Self.extract(key.key)
        }
        return expr + (key.descending ? " DESC" : " ASC")
    }
}
