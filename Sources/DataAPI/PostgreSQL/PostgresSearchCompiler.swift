/// Translates a `SearchExpression` into a condition over a class table joined with its search
/// table (`tsv`), and its order into an ORDER BY.
///
/// Text matches become `tsquery` literals (`PostgresSearchText`), bound as parameters and cast
/// (`?::tsquery`): no user text is ever part of the statement. Text parts of an AND or an OR are
/// joined into one `tsquery` (`&`, `|`, `!`), which one GIN index scan answers; conditions are
/// compiled as a find's, by `PostgresQueryCompiler`.
struct PostgresSearchCompiler {
    /// The class's indexed fields (a match in any field is a match in one of them).
    var indexed: [String]
    /// The compiler of the class's conditions and sort keys.
    var conditions: PostgresQueryCompiler

    /// A compiled part: a `tsquery` literal, or SQL.
    enum Part {
        case query(String)
        case sql(SQL)
    }

    /// The WHERE condition of an expression.
    func condition(_ expression: SearchExpression) -> SQL {
        sql(compile(expression))
    }

    /// The rank of a row: `ts_rank` against every text match not under a NOT (joined by OR),
    /// 0 when the expression has none.
    func rank(_ expression: SearchExpression) -> SQL {
        var queries: [String] = []
        collectRanked(expression, negated: false, into: &queries)
        guard !queries.isEmpty else { return SQL("0::real") }
        return SQL("ts_rank(tsv, ?::tsquery)", [queries.map { "(\($0))" }.joined(separator: " | ")])
    }

    /// The ORDER BY of a search order: relevance (best first) or the keys, `_score` being the
    /// rank; objectId breaks ties last.
    func order(_ order: SearchOrder, rank: SQL) -> SQL {
        var clause = SQL("ORDER BY ")
        var terms: [String] = []
        switch order {
        case .relevance:
            terms.append("(\(rank.text)) DESC")
            clause.binds += rank.binds
        case .keys(let keys):
            for key in keys {
                if key.key == "_score" {
                    terms.append("(\(rank.text)) \(key.descending ? "DESC" : "ASC")")
                    clause.binds += rank.binds
                } else {
                    terms += conditions.sortTerms(key)
                }
            }
        }
        terms.append("id ASC")
        clause.text += terms.joined(separator: ", ")
        return clause
    }

    private func compile(_ expression: SearchExpression) -> Part {
        switch expression {
        case .text(let match):
            guard let query = PostgresSearchText.query(match, indexed: indexed) else { return .sql(SQL("FALSE")) }
            return .query(query)
        case .condition(let predicate):
            return .sql(conditions.compile(predicate))
        case .everything:
            return .sql(SQL("TRUE"))
        case .not(let inner):
            switch compile(inner) {
            case .query(let query): return .query("!(\(query))")
            case .sql(let sql): return .sql(PostgresQueryCompiler.not(sql))
            }
        case .and(let parts):
            return join(parts.map(compile), query: " & ", sql: " AND ", empty: "TRUE")
        case .or(let parts):
            return join(parts.map(compile), query: " | ", sql: " OR ", empty: "FALSE")
        }
    }

    /// Parts joined: the text ones into one `tsquery`, then that with the SQL ones.
    private func join(_ parts: [Part], query: String, sql separator: String, empty: String) -> Part {
        var queries: [String] = []
        var fragments: [SQL] = []
        for part in parts {
            switch part {
            case .query(let text): queries.append("(\(text))")
            case .sql(let fragment): fragments.append(fragment)
            }
        }
        let joined = queries.isEmpty ? nil : queries.joined(separator: query)
        if fragments.isEmpty, let joined { return .query(joined) }
        if let joined { fragments.insert(sql(.query(joined)), at: 0) }
        return .sql(conditions.join(fragments, with: separator, empty: empty))
    }

    private func sql(_ part: Part) -> SQL {
        switch part {
        case .query(let query): return SQL("tsv @@ ?::tsquery", [query])
        case .sql(let fragment): return fragment
        }
    }

    private func collectRanked(_ expression: SearchExpression, negated: Bool, into queries: inout [String]) {
        switch expression {
        case .text(let match):
            if !negated, let query = PostgresSearchText.query(match, indexed: indexed) { queries.append(query) }
        case .not(let inner):
            collectRanked(inner, negated: !negated, into: &queries)
        case .and(let parts), .or(let parts):
            for part in parts { collectRanked(part, negated: negated, into: &queries) }
        case .condition, .everything:
            break
        }
    }
}
