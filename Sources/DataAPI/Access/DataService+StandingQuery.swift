import JSON

/// A standing query (a LiveQuery subscription): a query that is checked once when it is made and
/// then matched, in memory, against every committed write. Both go through the one
/// authorization step (`Access`) and the one evaluator (`QueryEvaluator`), so a subscription
/// sees what a `find` by the same caller would, no more.
extension DataService {
    /// Checks a query a client subscribes to, as a `find` by the caller would be checked:
    /// the class name, the host's internal classes, the class's `find` permission (a `_User`
    /// query with `find` closed narrows to the caller's own row, as a find does), hidden fields in
    /// the condition or the order, and the include paths. Parts a standing query can't have are
    /// refused too: a condition that reads other classes (`$inQuery`, `$select`, `$relatedTo`
    /// and their negations), which LeanCloud's LiveQuery doesn't support either.
    ///
    /// - Throws: 103, 119, 403 or 102, as a find by the caller would; 102 for a subquery.
    package func checkStandingQuery(_ query: ObjectQuery, caller: Caller) async throws {
        try checkClassName(query.className)
        try await checkIncludes(query.include, of: query.className)
        if let predicate = query.predicate { try Self.checkStandalone(predicate) }
        _ = try await access(for: caller).authorized(query)
    }

    /// How `caller` sees committed objects of the query's class now: the query with the
    /// caller's read restriction (ACL, roles, class permissions) put into it, as a find would
    /// run it, and the caller's view of an object. Worked out at delivery time, so a change of
    /// roles, ACLs or class permissions since the subscription counts.
    ///
    /// - Throws: what `checkStandingQuery` throws, when the caller may no longer find the class.
    package func standingView(of query: ObjectQuery, caller: Caller) async throws -> StandingView {
        let access = try await access(for: caller)
        let authorized = try await access.authorized(query)
        let restriction = try await access.authorized(ObjectQuery(className: query.className))
        let fields = try await storage(for: caller).fieldTypes(of: query.className)
        return StandingView(
            access: access, predicate: authorized.predicate, restriction: restriction.predicate,
            evaluator: QueryEvaluator(fields: fields), include: query.include, answerLimits: answerLimits,
            regexDeadline: .now + StandingView.regexBudget)
    }

    /// Refuses a condition that needs another class to be evaluated.
    private static func checkStandalone(_ predicate: QueryPredicate) throws(DataAPIError) {
        switch predicate {
        case .and(let parts), .or(let parts):
            for part in parts { try checkStandalone(part) }
        case .matchesQuery, .matchesKeyInQuery, .relatedTo:
            throw DataAPIError(
                .invalidQuery, "LiveQuery doesn't support inner queries: $inQuery, $notInQuery, $select, $dontSelect and $relatedTo.")
        case .readableBy:
            throw DataAPIError(.invalidQuery, "An authorized query has no REST form.")
        case .compare, .oneOf, .exists, .containsAll, .size, .regex, .nearSphere, .withinBox, .withinPolygon:
            break
        }
    }
}

/// One caller's rights on one standing query's class, worked out once for one committed write:
/// whether an object (as it was before, or is after, the write) is in the caller's results, and
/// the object as the caller is answered it.
package struct StandingView: Sendable {
    /// The caller's rights.
    let access: Access
    /// The query's condition with the caller's read restriction; nil matches everything.
    let predicate: QueryPredicate?
    /// The caller's read restriction alone: what of the class a find by it may return.
    let restriction: QueryPredicate?
    /// The one in-memory evaluator, with the class's field types.
    let evaluator: QueryEvaluator
    /// Pointer paths the answer resolves.
    let include: [String]
    /// What one answer may carry.
    let answerLimits: AnswerLimits
    /// When the view's `$regex` conditions must be done, all of them together: one subscription's
    /// matching of one change gets `regexBudget`, not 50 ms per condition and array element, so
    /// a query of hundreds of backtracking patterns can't hold every other subscriber's delivery.
    let regexDeadline: ContinuousClock.Instant

    /// How long all of one view's `$regex` conditions may take together; a pattern still
    /// running past it counts as no match.
    static let regexBudget: Duration = .milliseconds(10)

    /// Whether the object would be in the caller's results of the query: it matches the
    /// condition, and the caller may read it (its ACL, and for `_User` with `find` closed, only
    /// the caller's own row).
    package func matches(_ object: StoredObject) -> Bool {
        RegexCache.$queryDeadline.withValue(regexDeadline) { predicate.map { evaluator.matches(object, $0) } ?? true }
    }

    /// Whether the caller may read the object at all, whatever the query's condition.
    package func isVisible(_ object: StoredObject) -> Bool {
        RegexCache.$queryDeadline.withValue(regexDeadline) { restriction.map { evaluator.matches(object, $0) } ?? true }
    }

    /// The fields of the object the caller is shown (the rest are hidden from it).
    package func visibleKeys(of object: StoredObject) async throws -> Set<String> {
        Set(try await access.view(object).fields.keys)
    }

    /// The object as a find by the caller answers it: hidden and other users' private fields
    /// removed, includes resolved as the caller may read them, File values filled in.
    package func answer(_ object: StoredObject) async throws -> StoredObject {
        let viewed = try await access.view(object)
        let included = try await IncludeResolver(access: access, budget: .forAnswer(answerLimits)).resolve([viewed], paths: include)
        guard FileValueResolver.holdsFiles(included[0]) else { return included[0] }
        return try await FileValueResolver(access: access).resolve(included)[0]
    }
}
