/// What a storage engine is asked for one search: the class, the parsed query, the caller's
/// restriction already folded in by `Access`, the order and how many ids to return.
package struct SearchPlan: Sendable, Hashable {
    /// The class searched.
    package var className: String
    /// What the documents must match.
    package var expression: SearchExpression
    /// The caller's restriction (ACL, class `find` rules) as `Access.authorized(condition:of:)`
    /// made it; nil for the master key. Rows it excludes are neither returned nor counted.
    package var restriction: QueryPredicate?
    /// The order of the ids.
    package var order: SearchOrder
    /// The most ids returned (the scroll window); `hits` counts every match regardless.
    package var window: Int

    /// Creates a plan.
    package init(
        className: String, expression: SearchExpression, restriction: QueryPredicate?, order: SearchOrder, window: Int
    ) {
        self.className = className
        self.expression = expression
        self.restriction = restriction
        self.order = order
        self.window = window
    }
}

/// How search results are ordered.
package enum SearchOrder: Sendable, Hashable {
    /// Best match first (the default, and `order=-_score`), then objectId.
    case relevance
    /// By these keys, most significant first, then objectId. A key named `_score` is the
    /// relevance (Elasticsearch's name); any other, `score` included, is a field of the object,
    /// as in a `find`'s `order` (the JS SDK's own test sorts GameScore by its `score` field).
    case keys([SortKey])
}

/// What an engine answers a search: the ordered ids of the first `window` matches and how
/// many match in all.
package struct SearchMatches: Sendable, Hashable {
    /// Ids in the plan's order, at most `window`.
    package var ids: [String]
    /// How many objects match (every one the restriction lets the caller see).
    package var hits: Int

    /// Creates an answer.
    package init(ids: [String], hits: Int) {
        self.ids = ids
        self.hits = hits
    }
}
