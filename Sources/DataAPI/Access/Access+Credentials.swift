/// The one limit the master key has inside a query: credentials (password hashes, session
/// tokens, login counters) are named in no condition and no order. Answers never carry them,
/// but a filter on one is an oracle that reads it a character at a time (a `$gte` walk read a
/// session token in 131 queries), which would turn a leaked master key, or staging's code
/// acting as master on shared data, into every user's session. Clients are refused the same
/// fields by `checkQueryable`, with every other hidden field.
extension Access {
    /// Refuses (119) a master-key query or condition that filters or sorts on a credential, in
    /// it or in any subquery; the host's own lookups (`Caller.actsAsHost`) are not queries here.
    func checkNoCredentials(_ predicate: QueryPredicate?, order: [String] = [], of className: String) throws(DataAPIError) {
        guard !caller.actsAsHost else { return }
        for key in order { try Self.checkNotCredential(key, of: className) }
        try Self.checkNoCredentials(predicate, of: className)
    }

    private static func checkNoCredentials(_ predicate: QueryPredicate?, of className: String) throws(DataAPIError) {
        guard let predicate else { return }
        switch predicate {
        case .and(let parts), .or(let parts):
            for part in parts { try checkNoCredentials(part, of: className) }
        case .compare(let key, _, _), .oneOf(let key, _, _), .exists(let key, _), .containsAll(let key, _),
            .size(let key, _), .regex(let key, _, _), .nearSphere(let key, _, _), .withinBox(let key, _, _),
            .withinPolygon(let key, _):
            try checkNotCredential(key, of: className)
        case .matchesQuery(let key, let subquery, _):
            try checkNotCredential(key, of: className)
            try checkNoCredentials(subquery.predicate, of: subquery.className)
        case .matchesKeyInQuery(let key, let subquery, let subKey, _):
            try checkNotCredential(key, of: className)
            try checkNotCredential(subKey, of: subquery.className)
            try checkNoCredentials(subquery.predicate, of: subquery.className)
        case .relatedTo(let ownerClass, _, let field):
            try checkNotCredential(field, of: ownerClass)
        case .readableBy:
            return
        }
    }

    private static func checkNotCredential(_ key: String, of className: String) throws(DataAPIError) {
        let field = String(key.split(separator: ".", maxSplits: 1).first ?? "")
        guard alwaysHidden(in: className).contains(field) else { return }
        throw DataAPIError(.operationForbidden, "Forbidden to query the field \(field).")
    }
}
