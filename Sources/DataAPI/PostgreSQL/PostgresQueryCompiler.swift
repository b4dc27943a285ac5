import JSON

/// Translates a `QueryPredicate` into an SQL condition over a class table (`id`, `created_at`,
/// `updated_at`, `doc` JSONB), with the meaning `SQLiteQueryCompiler` gives it.
///
/// Fields of a recorded type compile to the expressions `PostgresIndexer` indexes (text fields
/// as `(doc->>'f') COLLATE "C"`, so strings sort by bytes as in SQLite; numbers as JSONB, which
/// compares them numerically); a field of unknown type gets a `jsonb_typeof` guard so a type
/// mismatch matches nothing. Array fields compare their elements, and "the array contains this
/// scalar" is a JSONB containment the class's GIN index serves.
struct PostgresQueryCompiler {
    /// The queried class.
    var className: String
    /// Its recorded field types.
    var fields: [String: FieldType]
    /// Other classes' tables and schemas, for subqueries.
    var resolve: (String) -> PostgresStorage.ClassEntry?

    func compile(_ predicate: QueryPredicate) -> SQL {
        switch predicate {
        case .and(let parts):
            return join(parts.map(compile), with: " AND ", empty: "TRUE")
        case .or(let parts):
            return join(parts.map(compile), with: " OR ", empty: "FALSE")
        case .exists(let key, let flag):
            if Self.column(for: key) != nil { return SQL(flag ? "TRUE" : "FALSE") }
            return SQL("\(Self.json(key)) IS \(flag ? "NOT NULL" : "NULL")")
        case .compare(let key, let op, let value):
            return compare(key: key, op, value)
        case .oneOf(let key, let values, let negated):
            let any = join(values.map { compare(key: key, .equal, $0) }, with: " OR ", empty: "FALSE")
            return negated ? Self.not(any) : any
        default:
            return compileExtended(predicate)
        }
    }

    /// `NOT` that also holds where the condition is NULL (a missing field).
    static func not(_ fragment: SQL) -> SQL {
        SQL("(\(fragment.text)) IS NOT TRUE", fragment.binds)
    }

    func join(_ fragments: [SQL], with separator: String, empty: String) -> SQL {
        if fragments.isEmpty { return SQL(empty) }
        return SQL(fragments.map { "(\($0.text))" }.joined(separator: separator), fragments.flatMap(\.binds))
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

    /// The JSONB value at a (validated) key path: `doc->'a'->'b'`, NULL when missing.
    static func json(_ key: String, suffix: String? = nil) -> String {
        var parts = key.split(separator: ".").map(String.init)
        if let suffix { parts.append(suffix) }
        return "doc" + parts.map { "->'\($0)'" }.joined()
    }

    /// The text at a key path, in the "C" collation: `((doc->'a'->>'b') COLLATE "C")`.
    static func text(_ key: String, suffix: String? = nil) -> String {
        var parts = key.split(separator: ".").map(String.init)
        if let suffix { parts.append(suffix) }
        let last = parts.removeLast()
        return "((doc" + parts.map { "->'\($0)'" }.joined() + "->>'\(last)') COLLATE \"C\")"
    }

    /// The JSON text of a value, bound for a `?::jsonb`.
    static func jsonText(_ value: JSONValue) -> String? { value.jsonString }

    private func compare(key: String, _ op: ComparisonOperator, _ value: JSONValue) -> SQL {
        let sqlOp = Self.sqlOperator(op)
        if let column = Self.column(for: key) {
            // Built-ins hold text: an id, or canonical ISO dates.
            let text: String?
            switch value {
            case .string(let s): text = key == "objectId" ? s : ISODate.normalized(s)
            case _ where value.typeTag == "Date": text = value["iso"]?.stringValue
            default: text = nil
            }
            guard let text else { return SQL(op == .notEqual ? "TRUE" : "FALSE") }
            return SQL("\(column) \(sqlOp) ?", [text])
        }
        let recorded = key.contains(".") ? nil : fields[key]
        if recorded == .relation, value.typeTag == "Pointer", op == .equal || op == .notEqual {
            // Owners whose Relation holds this object, of the pointer's class (ids are only
            // unique within a class).
            let owned = SQL(
                "\(Self.text(key, suffix: "className")) = ? AND "
                    + "id IN (SELECT owner_id FROM fh_relations WHERE owner_class = ? AND field = ? AND target_id = ?)",
                [value["className"]?.stringValue ?? "", className, key, value["objectId"]?.stringValue ?? ""])
            return op == .equal ? owned : Self.not(owned)
        }
        if recorded == .array, !value.isArrayOrPlainObject {
            let contains: SQL
            if op == .equal || op == .notEqual, let containment = Self.containment(key, [value]) {
                contains = containment
            } else {
                contains = anyElement(key, elementCondition(op == .notEqual ? .equal : op, value))
            }
            return op == .notEqual ? Self.not(contains) : contains
        }
        let positive = valueCondition(key: key, recorded: recorded, op == .notEqual ? .equal : op, value)
        // $ne also matches objects that lack the field (NULL), as the SDKs' backends do.
        return op == .notEqual ? Self.not(positive) : positive
    }

    /// `doc @> {"key": [values]}`: the array at `key` holds every one of the scalar values,
    /// which the class's GIN index answers. Nil when a value is not a string, number or bool.
    static func containment(_ key: String, _ values: [JSONValue]) -> SQL? {
        for value in values {
            switch value {
            case .string, .int, .double, .bool: continue
            default: return nil
            }
        }
        var document = JSONValue.array(values)
        for part in key.split(separator: ".").reversed() { document = .object([String(part): document]) }
        return SQL("doc @> ?::jsonb", [Self.jsonText(document)])
    }

    /// Whether some element of the array at `key` meets `condition` (written over `e.v`). A
    /// value that is not an array (a null in an array field) is its own single element, as
    /// SQLite's `json_each` has it; a missing field has none.
    func anyElement(_ key: String, _ condition: SQL) -> SQL {
        let value = Self.json(key)
        return SQL(
            "EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(\(value)) = 'array' THEN \(value) "
                + "WHEN \(value) IS NOT NULL THEN jsonb_build_array(\(value)) END) AS e(v) WHERE \(condition.text))",
            condition.binds)
    }

    /// A condition on one stored field (not an array's elements).
    private func valueCondition(key: String, recorded: FieldType?, _ op: ComparisonOperator, _ value: JSONValue) -> SQL {
        let sqlOp = Self.sqlOperator(op)
        let json = Self.json(key)
        let type = "jsonb_typeof(\(json))"
        switch value {
        case .null:
            guard op == .equal else { return SQL("FALSE") }
            return SQL("\(json) IS NULL OR \(type) = 'null'")
        case .bool(let b):
            guard op == .equal else { return SQL("FALSE") }
            if recorded == .boolean { return SQL("\(Self.scalar(key)) = '\(b)'::jsonb") }
            return SQL("\(json) = '\(b)'::jsonb")
        case .int, .double:
            if recorded == .number { return SQL("\(Self.scalar(key)) \(sqlOp) ?::jsonb AND \(type) = 'number'", [Self.jsonText(value)]) }
            if recorded != nil { return SQL("FALSE") }
            return SQL("\(type) = 'number' AND \(json) \(sqlOp) ?::jsonb", [Self.jsonText(value)])
        case .string(let s):
            if recorded == .string { return SQL("\(Self.text(key)) \(sqlOp) ?", [s]) }
            if recorded != nil { return SQL("FALSE") }
            return SQL("\(type) = 'string' AND \(Self.text(key)) \(sqlOp) ?", [s])
        default:
            break
        }
        switch value.typeTag {
        case "Date":
            let iso = value["iso"]?.stringValue ?? ""
            if recorded == .date { return SQL("\(Self.text(key, suffix: "iso")) \(sqlOp) ?", [iso]) }
            if recorded != nil { return SQL("FALSE") }
            return SQL(
                "\(Self.json(key, suffix: "__type")) = '\"Date\"'::jsonb AND \(Self.text(key, suffix: "iso")) \(sqlOp) ?",
                [iso])
        case "Pointer":
            guard op == .equal, recorded == nil || recorded == .pointer else { return SQL("FALSE") }
            return SQL(
                "\(Self.text(key, suffix: "objectId")) = ? AND \(Self.text(key, suffix: "className")) = ?",
                [value["objectId"]?.stringValue ?? "", value["className"]?.stringValue ?? ""])
        default:
            // Arrays, plain objects and other typed values compare as JSON values.
            guard op == .equal else { return SQL("FALSE") }
            let kind = value.arrayValue != nil ? "array" : "object"
            return SQL("\(type) = '\(kind)' AND \(json) = ?::jsonb", [Self.jsonText(value)])
        }
    }

    /// A condition on the current element `e.v` of an array field.
    func elementCondition(_ op: ComparisonOperator, _ value: JSONValue) -> SQL {
        let sqlOp = Self.sqlOperator(op)
        switch value {
        case .null: return SQL(op == .equal ? "jsonb_typeof(e.v) = 'null'" : "FALSE")
        case .bool(let b): return SQL(op == .equal ? "e.v = '\(b)'::jsonb" : "FALSE")
        case .int, .double:
            return SQL("jsonb_typeof(e.v) = 'number' AND e.v \(sqlOp) ?::jsonb", [Self.jsonText(value)])
        case .string(let s):
            return SQL("jsonb_typeof(e.v) = 'string' AND (e.v #>> '{}') COLLATE \"C\" \(sqlOp) ?", [s])
        default:
            if value.typeTag == "Date" {
                return SQL(
                    "e.v->'__type' = '\"Date\"'::jsonb AND (e.v->>'iso') COLLATE \"C\" \(sqlOp) ?",
                    [value["iso"]?.stringValue ?? ""])
            }
            guard op == .equal else { return SQL("FALSE") }
            return SQL("jsonb_typeof(e.v) = 'object' AND e.v = ?::jsonb", [Self.jsonText(value)])
        }
    }

    static func sqlOperator(_ op: ComparisonOperator) -> String {
        switch op {
        case .equal: return "="
        case .notEqual: return "<>"
        case .less: return "<"
        case .lessOrEqual: return "<="
        case .greater: return ">"
        case .greaterOrEqual: return ">="
        }
    }

    /// The expression a field of recorded type sorts by and is indexed on: text in "C" order
    /// for strings and dates; for numbers and booleans the JSONB value, a JSON null read as SQL
    /// NULL (as SQLite's `json_extract` reads it, so it sorts with the missing values).
    func sortExpression(_ key: String) -> String? {
        if let column = Self.column(for: key) { return column }
        switch key.contains(".") ? nil : fields[key] {
        case .string?: return Self.text(key)
        case .date?: return Self.text(key, suffix: "iso")
        case .number?, .boolean?: return Self.scalar(key)
        default: return nil
        }
    }

    /// The JSONB value at `key`, NULL for a JSON null.
    static func scalar(_ key: String) -> String {
        "NULLIF(\(json(key)), 'null'::jsonb)"
    }

    /// Sort terms for a field of unknown or mixed type, in SQLite's order for `json_extract`:
    /// missing and null first, then numbers (booleans as 0 and 1), then text (arrays and
    /// objects as their JSON text).
    static func mixedSortTerms(_ key: String) -> [String] {
        let value = json(key)
        return [
            "(CASE jsonb_typeof(\(value)) WHEN 'number' THEN 0 WHEN 'boolean' THEN 0 WHEN 'string' THEN 1 "
                + "WHEN 'array' THEN 1 WHEN 'object' THEN 1 END)",
            "(CASE jsonb_typeof(\(value)) WHEN 'number' THEN (\(value))::text::numeric "
                + "WHEN 'boolean' THEN (\(value) = 'true'::jsonb)::int END)",
            "((CASE jsonb_typeof(\(value)) WHEN 'string' THEN \(value) #>> '{}' WHEN 'array' THEN (\(value))::text "
                + "WHEN 'object' THEN (\(value))::text END) COLLATE \"C\")",
        ]
    }

    /// The ORDER BY clause; insertion order (`seq`) breaks ties and orders by default. NULL (a
    /// missing field) sorts first, as in SQLite.
    func orderClause(_ keys: [SortKey], predicate: QueryPredicate? = nil) -> SQL {
        if keys.isEmpty, let near = SQLiteQueryCompiler.nearSphere(in: predicate) {
            return SQL(
                "ORDER BY \(distanceExpression(near.key)) ASC, seq ASC",
                [String(near.point.latitude), String(near.point.longitude)])
        }
        var terms = keys.flatMap(sortTerms)
        terms.append("seq ASC")
        return SQL("ORDER BY " + terms.joined(separator: ", "))
    }

    /// The ORDER BY terms of one key, with its direction (what search orders by too).
    func sortTerms(_ key: SortKey) -> [String] {
        let direction = key.descending ? " DESC NULLS LAST" : " ASC NULLS FIRST"
        let expressions = sortExpression(key.key).map { [$0] } ?? Self.mixedSortTerms(key.key)
        return expressions.map { $0 + direction }
    }
}
