extension QueryPredicate {
    /// The most values one `$in`, `$nin` or `$all` may list.
    public static let maxListValues = 1_000
    /// The most conditions and values a whole `where` may hold, subqueries included: each
    /// condition counts one, each listed value one more. A `$in` of 10 000 values cost seconds of
    /// a database connection per query; no client query has come near this.
    public static let maxSize = 5_000

    /// The conditions and values in the predicate, subqueries included.
    public var weight: Int {
        switch self {
        case .and(let parts), .or(let parts):
            return parts.reduce(1) { $0 + $1.weight }
        case .oneOf(_, let values, _), .containsAll(_, let values):
            return 1 + values.count
        case .withinPolygon(_, let points):
            return 1 + points.count
        case .matchesQuery(_, let subquery, _), .matchesKeyInQuery(_, let subquery, _, _):
            return 1 + (subquery.predicate?.weight ?? 0)
        case .readableBy(let identities):
            return 1 + identities.count
        case .compare, .exists, .size, .regex, .relatedTo, .nearSphere, .withinBox:
            return 1
        }
    }

    /// Checks the predicate is within `maxSize`.
    ///
    /// - Throws: 102 past it.
    func checkSize() throws(DataAPIError) {
        guard weight <= Self.maxSize else {
            throw DataAPIError(
                .invalidQuery, "The query is too large: at most \(Self.maxSize) conditions and values in all.")
        }
    }
}
