import JSON

/// Full-text search through the one authorization step.
extension DataService {
    /// A page of the objects matching a search, as the caller may see them: the caller must be
    /// allowed to `find` the class, and an object it may not read is neither answered nor
    /// counted.
    ///
    /// Without a class, every class search is on for that the caller may find is searched (one
    /// whose `find` is closed to it, or whose fields `q` doesn't fit, is left out), and the
    /// classes' results are merged rank by rank: relevance isn't comparable across classes, so
    /// an order by fields needs a class.
    ///
    /// - Throws: 102 for a query that doesn't parse or names a field search isn't on for; 101
    ///   when search isn't on for the class; 119/403 as a `find` would; 1 for an unknown or
    ///   expired scroll.
    public func search(_ request: SearchRequest, caller: Caller) async throws -> SearchAnswer {
        guard (0...ObjectQuery.maxLimit).contains(request.limit) else {
            throw DataAPIError(.invalidQuery, "limit must be an integer from 0 to \(ObjectQuery.maxLimit).")
        }
        guard (0..<SearchScrolls.window).contains(request.skip) else {
            throw DataAPIError(.invalidQuery, "skip must be an integer from 0 to \(SearchScrolls.window - 1): page further with sid.")
        }
        guard request.order.count <= ObjectQuery.maxOrderKeys else {
            throw DataAPIError(.invalidQuery, "A search sorts by at most \(ObjectQuery.maxOrderKeys) keys.")
        }
        try await checkIncludes(request.include, of: request.className ?? "")
        let storage = storage(for: caller)
        let access = try await access(for: caller)
        let targets = try await searchTargets(request, access: access, storage: storage)
        let requestKey = [request.className ?? "*", request.query, request.order.map { ($0.descending ? "-" : "") + $0.key }.joined(separator: ",")]
            .joined(separator: "\n")
        let scrolls = SearchScrolls(storage: storage, caller: caller)
        var scroll: SearchScrolls.Scroll?
        var entries: SearchEntries
        var hits = 0
        if let sid = request.scrollID {
            let opened = try await scrolls.open(sid, request: requestKey)
            (scroll, entries, hits) = (opened, opened.entries, opened.hits)
        } else {
            var lists: [[String]] = []
            for target in targets {
                let matches = try await storage.search(target.plan)
                lists.append(matches.ids.prefix(SearchScrolls.window).map { target.plan.className + "/" + $0 })
                hits += matches.hits
            }
            entries = SearchEntries(Self.interleaved(lists, limit: SearchScrolls.window))
        }
        let start = (scroll?.position ?? 0) + request.skip
        let (objects, next) = try await searchPage(&entries, from: start, limit: request.limit, targets: targets, storage: storage)
        var scrollID: String?
        if let scroll {
            try await scrolls.advance(scroll, to: next)
            scrollID = next < entries.count ? request.scrollID : nil
        } else if next < entries.count, request.limit > 0 {
            let all = try await entries.slice(0..<entries.count)
            scrollID = try await scrolls.create(request: requestKey, entries: all, position: next, hits: hits)
        }
        let results = try await searchResults(objects, request: request, targets: targets, access: access)
        return SearchAnswer(results: results, hits: hits, scrollID: scrollID)
    }

    /// The classes search is on for, and their fields (master key only).
    public func searchSettings(caller: Caller) async throws -> [SearchSettings] {
        guard caller.isMaster else { throw Self.searchSettingsForbidden }
        return try await storage(for: caller).searchSettings()
    }

    /// Turns search on for a class's `fields` (indexing what the class holds, in one
    /// transaction), changes its fields, or turns it off (`fields` nil). Master key only.
    ///
    /// - Throws: 119 without the master key or for a system class; 103 for an invalid class
    ///   name; 101 for a class that doesn't exist; 105 for an invalid or built-in field; 1 past
    ///   `SearchSettings.maxFields` fields or `maxClasses` classes.
    public func setSearch(_ className: String, fields: [String]?, caller: Caller) async throws -> SearchSettings? {
        guard caller.isMaster else { throw Self.searchSettingsForbidden }
        try checkClassName(className)
        // System classes hold credentials and the host's own records: none is searched.
        guard !className.hasPrefix("_") else {
            throw DataAPIError(.operationForbidden, "Search can't be turned on for the system class \(className).")
        }
        let storage = storage(for: caller)
        guard let fields else {
            try await storage.setSearch(className, to: nil)
            return nil
        }
        let settings = SearchSettings(className: className, fields: fields)
        let others = try await storage.searchSettings().filter { $0.className != className }
        try SearchLimits.check(settings, otherClasses: others.count)
        guard try await storage.classExists(className) else { throw Self.classNotFound }
        try await storage.setSearch(className, to: settings)
        return settings
    }

    private static let searchSettingsForbidden = DataAPIError(.operationForbidden, "Search settings need the master key.")

    /// One class a search reads: its plan (the query checked as a find's, the caller's
    /// restriction, the order) and its indexed fields.
    struct SearchTarget {
        var plan: SearchPlan
        var fields: [String]
    }

    /// The class searched, or every class search is on for that the caller may search.
    private func searchTargets(_ request: SearchRequest, access: Access, storage: any StorageEngine) async throws -> [SearchTarget] {
        let settings = try await storage.searchSettings()
        if let className = request.className {
            try checkClassName(className)
            try access.checkNotInternal(className)
            guard let setting = settings.first(where: { $0.className == className }) else {
                throw DataAPIError(.objectNotFound, "Search isn't on for the class \(className).")
            }
            return [try await searchTarget(setting, request: request, access: access)]
        }
        guard request.order.allSatisfy({ $0.key == "_score" }) else {
            throw DataAPIError(.invalidQuery, "A search of every class is ordered by relevance: name a class (clazz) to order by fields.")
        }
        var targets: [SearchTarget] = []
        var refusal: DataAPIError?
        for setting in settings {
            do {
                targets.append(try await searchTarget(setting, request: request, access: access))
            } catch let error as DataAPIError
                where [.invalidQuery, .operationForbidden, .forbiddenByClassPermissions].contains(error.code)
            {
                refusal = refusal ?? error
            }
        }
        if targets.isEmpty { throw refusal ?? DataAPIError(.objectNotFound, "Search isn't on for any class.") }
        return targets
    }

    /// A class's plan: the caller must be allowed to find the class (and sort by the order's
    /// fields); each condition of `q` is checked as a find's, and each text match's field too.
    private func searchTarget(_ setting: SearchSettings, request: SearchRequest, access: Access) async throws -> SearchTarget {
        let className = setting.className
        let fieldOrder = request.order.filter { $0.key != "_score" }
        let restriction = try await access.authorized(ObjectQuery(className: className, order: fieldOrder)).predicate
        let parsed = try SearchQueryParser.parse(request.query, className: className, indexedFields: Set(setting.fields))
        var readable = setting.fields
        if !access.isMaster {
            readable = []
            for field in setting.fields where (try? await access.checkQueryable(field, of: className)) != nil { readable.append(field) }
        }
        let expression = try await authorized(parsed, of: className, access: access, readableFields: readable, allFields: setting.fields)
        let isRelevance = request.order.isEmpty || request.order == [SortKey(key: "_score", descending: true)]
        let plan = SearchPlan(
            className: className, expression: expression, restriction: restriction,
            order: isRelevance ? .relevance : .keys(request.order), window: SearchScrolls.window)
        return SearchTarget(plan: plan, fields: setting.fields)
    }

    /// The expression with its conditions checked by `Access` as a find's `where` is, a text
    /// match in a field the caller may not query refused, and a match in any field limited to
    /// the indexed fields the caller may query (a hidden one is no oracle either).
    private func authorized(
        _ expression: SearchExpression, of className: String, access: Access, readableFields: [String], allFields: [String]
    ) async throws -> SearchExpression {
        switch expression {
        case .condition(let predicate):
            return .condition(try await access.authorized(condition: predicate, of: className) ?? predicate)
        case .text(let match):
            if let field = match.field {
                try await access.checkQueryable(field, of: className)
                return expression
            }
            guard readableFields.count < allFields.count else { return expression }
            return .or(readableFields.map { field in
                var limited = match
                limited.field = field
                return .text(limited)
            })
        case .and(let parts), .or(let parts):
            var checked: [SearchExpression] = []
            for part in parts {
                checked.append(try await authorized(part, of: className, access: access, readableFields: readableFields, allFields: allFields))
            }
            if case .and = expression { return .and(checked) }
            return .or(checked)
        case .not(let part):
            return .not(try await authorized(part, of: className, access: access, readableFields: readableFields, allFields: allFields))
        case .everything:
            return expression
        }
    }

    /// Several classes' ordered lists merged rank by rank, up to `limit` entries.
    static func interleaved(_ lists: [[String]], limit: Int) -> [String] {
        guard lists.count > 1 else { return Array((lists.first ?? []).prefix(limit)) }
        var merged: [String] = []
        var rank = 0
        while merged.count < limit, lists.contains(where: { rank < $0.count }) {
            for list in lists where rank < list.count && merged.count < limit { merged.append(list[rank]) }
            rank += 1
        }
        return merged
    }

    /// Up to `limit` objects of `entries` from `start`, read now with the caller's restriction:
    /// one deleted or no longer readable is skipped (and the next entry taken), so pages stay
    /// full and never repeat. Answers where the page ended in `entries`.
    private func searchPage(
        _ entries: inout SearchEntries, from start: Int, limit: Int, targets: [SearchTarget], storage: any StorageEngine
    ) async throws -> (objects: [StoredObject], next: Int) {
        let restrictions = Dictionary(targets.map { ($0.plan.className, $0.plan.restriction) }, uniquingKeysWith: { first, _ in first })
        let budget = AnswerBudget.forAnswer(answerLimits)
        var objects: [StoredObject] = []
        var cursor = min(start, entries.count)
        while objects.count < limit, cursor < entries.count {
            let chunk = try await entries.slice(cursor..<min(entries.count, cursor + limit - objects.count))
            cursor += chunk.count
            var byClass: [String: [String]] = [:]
            for entry in chunk {
                let parts = entry.split(separator: "/", maxSplits: 1)
                if parts.count == 2 { byClass[String(parts[0]), default: []].append(String(parts[1])) }
            }
            var found: [String: StoredObject] = [:]
            for (className, ids) in byClass {
                guard let restriction = restrictions[className] else { continue }
                let idCondition = QueryPredicate.oneOf(key: "objectId", ids.map { .string($0) }, negated: false)
                let query = ObjectQuery(
                    className: className, predicate: restriction.map { .and([idCondition, $0]) } ?? idCondition, limit: ids.count)
                for object in try await storage.find(query, charging: budget) { found[className + "/" + object.objectId] = object }
            }
            objects += chunk.compactMap { found[$0] }
        }
        return (objects, cursor)
    }

    /// The caller's view of each object, with its highlights, key selection, includes and File
    /// values, as a find answers them.
    private func searchResults(
        _ objects: [StoredObject], request: SearchRequest, targets: [SearchTarget], access: Access
    ) async throws -> [SearchResult] {
        var viewed: [StoredObject] = []
        for object in objects { viewed.append(try await access.view(object)) }
        var highlights: [[String: [String]]?] = []
        var budget = SearchHighlighter.answerBudget
        for object in viewed {
            guard let asked = request.highlights, let target = targets.first(where: { $0.plan.className == object.className }) else {
                highlights.append(nil)
                continue
            }
            // Highlights come from the fields the caller sees (the view), indexed ones only.
            let fields = asked.contains("*") ? target.fields : asked.filter(target.fields.contains)
            highlights.append(SearchHighlighter(target.plan.expression).highlight(object.fields, fields: fields, budget: &budget))
        }
        let included = try await IncludeResolver(access: access, budget: .forAnswer(answerLimits)).resolve(viewed, paths: request.include)
        let resolved = try await FileValueResolver(access: access).resolve(included)
        return zip(resolved, highlights).map { object, highlight in
            var object = object
            if !request.returnACL { object.fields["ACL"] = nil }
            if let keys = request.keys { object.fields = keys.apply(to: object.fields) }
            return SearchResult(object: object, highlight: highlight)
        }
    }
}
