extension PostgresQueryCompiler {
    /// ACL, array, text, subquery, relation and geo conditions.
    func compileExtended(_ predicate: QueryPredicate) -> SQL {
        switch predicate {
        case .readableBy(let identities):
            // No ACL reads as public; otherwise one of the caller's identities must have read.
            let grants = identities.map { _ in "doc->'ACL'->(?::text)->'read' = 'true'::jsonb" }
            return SQL(
                "doc->'ACL' IS NULL" + grants.map { " OR " + $0 }.joined(), identities.map { Optional($0.text) })
        case .containsAll(let key, let values):
            // As MongoDB (LeanCloud's store) has it, an empty $all matches nothing.
            if values.isEmpty { return SQL("FALSE") }
            // A value that isn't an array matches when it equals every constant (MongoDB's
            // `$all` is the `$and` of equalities; the Python SDK's `contains_all` on a Number).
            let equal = compile(.and(values.map { .compare(key: key, .equal, $0) }))
            let scalar = SQL(
                "jsonb_typeof(\(Self.json(key))) IS DISTINCT FROM 'array' AND (\(equal.text))", equal.binds)
            let array: SQL
            if let containment = Self.containment(key, values) {
                array = containment
            } else {
                let parts = values.map { anyElement(key, elementCondition(.equal, $0)) }
                array = SQL(
                    "jsonb_typeof(\(Self.json(key))) = 'array' AND " + parts.map { "(\($0.text))" }.joined(separator: " AND "),
                    parts.flatMap(\.binds))
            }
            return SQL("(\(array.text)) OR (\(scalar.text))", array.binds + scalar.binds)
        case .size(let key, let count):
            let json = Self.json(key)
            return SQL(
                "(CASE WHEN jsonb_typeof(\(json)) = 'array' THEN jsonb_array_length(\(json)) END) = ?::int", [String(count)])
        case .regex(let key, let pattern, let options):
            let expression = Self.regularExpression(pattern, options: options)
            if !key.contains("."), fields[key] == .array {
                // On an array field the expression is matched against each text element.
                return anyElement(
                    key, SQL("jsonb_typeof(e.v) = 'string' AND (e.v #>> '{}') ~ ?", [expression]))
            }
            return SQL(
                "jsonb_typeof(\(Self.json(key))) = 'string' AND (\(Self.json(key)) #>> '{}') ~ ?", [expression])
        case .matchesQuery(let key, let subquery, let negated):
            let inner = subquerySQL(subquery, selecting: "id")
            let matched: SQL
            if !key.contains("."), fields[key] == .array {
                matched = anyElement(
                    key, SQL("jsonb_typeof(e.v) = 'object' AND (e.v->>'objectId') COLLATE \"C\" IN (\(inner.text))", inner.binds))
            } else {
                matched = SQL(
                    "\(Self.text(key, suffix: "className")) = ? AND \(Self.text(key, suffix: "objectId")) IN (\(inner.text))",
                    [subquery.className] + inner.binds)
            }
            return negated ? Self.not(matched) : matched
        case .matchesKeyInQuery(let key, let subquery, let subKey, let negated):
            // Compared as JSONB values, so a number matches a number and text matches text.
            let selected = Self.column(for: subKey).map { "to_jsonb(\($0))" } ?? Self.json(subKey)
            let inner = subquerySQL(subquery, selecting: selected)
            let own = Self.column(for: key).map { "to_jsonb(\($0))" } ?? Self.json(key)
            let matched = SQL("\(own) IN (\(inner.text))", inner.binds)
            return negated ? Self.not(matched) : matched
        case .relatedTo(let ownerClass, let ownerId, let field):
            return SQL(
                "id IN (SELECT target_id FROM fh_relations WHERE owner_class = ? AND field = ? AND owner_id = ?)",
                [ownerClass, field, ownerId])
        case .nearSphere(let key, let point, let maxDistance):
            let located = Self.isGeoPoint(key)
            guard let maxDistance else { return SQL(located) }
            return SQL(
                "\(located) AND \(distanceExpression(key)) <= ?::float8",
                [String(point.latitude), String(point.longitude), String(maxDistance)])
        case .withinBox(let key, let southwest, let northeast):
            return SQL(
                "\(Self.isGeoPoint(key)) AND fh_number(\(Self.json(key, suffix: "latitude"))) BETWEEN ?::float8 AND ?::float8 "
                    + "AND fh_number(\(Self.json(key, suffix: "longitude"))) BETWEEN ?::float8 AND ?::float8",
                [
                    String(southwest.latitude), String(northeast.latitude),
                    String(southwest.longitude), String(northeast.longitude),
                ])
        case .withinPolygon(let key, let vertices):
            let numbers = vertices.flatMap { [String($0.latitude), String($0.longitude)] }
            return SQL(
                "\(Self.isGeoPoint(key)) AND fh_in_polygon(fh_number(\(Self.json(key, suffix: "latitude"))), "
                    + "fh_number(\(Self.json(key, suffix: "longitude"))), ?::float8[])",
                ["{" + numbers.joined(separator: ",") + "}"])
        case .and, .or, .compare, .oneOf, .exists:
            return compile(predicate)
        }
    }

    static func isGeoPoint(_ key: String) -> String {
        "\(json(key, suffix: "__type")) = '\"GeoPoint\"'::jsonb"
    }

    /// The distance from the query point (two bound values) to the GeoPoint at `key`.
    func distanceExpression(_ key: String) -> String {
        "fh_distance(?::float8, ?::float8, fh_number(\(Self.json(key, suffix: "latitude"))), "
            + "fh_number(\(Self.json(key, suffix: "longitude"))))"
    }

    /// A `$regex` with its options as PostgreSQL's embedded options. PostgreSQL's default lets
    /// `.` match a newline; MongoDB's (and the SDKs') does not unless `s` is given, and `m` makes
    /// `^` and `$` match at lines: `p`, `n`, `s` and `w` are those four combinations.
    static func regularExpression(_ pattern: String, options: String) -> String {
        let dotAll = options.contains("s")
        let lines = options.contains("m")
        var flags = dotAll ? (lines ? "w" : "s") : (lines ? "n" : "p")
        if options.contains("i") { flags += "i" }
        if options.contains("x") { flags += "x" }
        return "(?\(flags))" + Self.unquoting(pattern)
    }

    /// The pattern with each `\Q...\E` literal span (what the JS SDK's `startsWith`,
    /// `endsWith` and `contains` send) written as escaped characters: PostgreSQL's regular
    /// expressions have no `\Q`.
    static func unquoting(_ pattern: String) -> String {
        guard pattern.contains("\\Q") else { return pattern }
        let characters = Array(pattern)
        var result = ""
        var quoting = false
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let next = index + 1 < characters.count ? characters[index + 1] : nil
            if quoting {
                // Inside a span only `\E` means anything: it ends the span.
                if character == "\\", next == "E" {
                    quoting = false
                    index += 2
                } else {
                    result += Self.escaped(character)
                    index += 1
                }
            } else if character == "\\", let next {
                if next == "Q" { quoting = true } else { result += String([character, next]) }
                index += 2
            } else {
                result.append(character)
                index += 1
            }
        }
        return result
    }

    private static func escaped(_ character: Character) -> String {
        character.isLetter || character.isNumber || character == " " ? String(character) : "\\" + String(character)
    }

    /// `SELECT <selected> FROM <class table> WHERE <condition>`; a class that doesn't exist
    /// selects nothing.
    private func subquerySQL(_ subquery: Subquery, selecting selected: String) -> SQL {
        guard let entry = resolve(subquery.className) else { return SQL("SELECT NULL WHERE FALSE") }
        let inner = PostgresQueryCompiler(className: subquery.className, fields: entry.fields, resolve: resolve)
        let condition = subquery.predicate.map(inner.compile) ?? SQL("TRUE")
        return SQL("SELECT \(selected) FROM \"\(entry.table)\" WHERE \(condition.text)", condition.binds)
    }
}
