import JSON

/// A get by id (`GET /classes/{C}/{id}`, `/batch` GETs, cloud code's `fetch`): a query for one
/// object, which its class's find hooks see as one, so a hook that hides rows hides them from
/// gets too.
extension DataService {
    /// The object with this id, with pointers in `include` resolved; nil when it doesn't exist
    /// (or the caller may not read it, or a `beforeFind` hook's condition leaves it out).
    ///
    /// - Throws: 101 when the class itself doesn't exist.
    public func fetch(
        _ className: String, id: String, include: [String] = [], caller: Caller
    ) async throws -> StoredObject? {
        try checkClassName(className)
        try await checkIncludes(include, of: className)
        let hooks = operationHooks(for: caller)
        guard hooks.willRun(.beforeFind, className) || hooks.willRun(.afterFind, className) else {
            return try await get(className, id: id, include: include, condition: nil, caller: caller)
        }
        // Shown to the hooks as `where={"objectId": id}&limit=1`, as Parse shows a get. The
        // hook's condition narrows the get; the id stays the one asked for.
        var parameters: [String: JSONValue] = ["where": ["objectId": .string(id)], "limit": 1]
        if !include.isEmpty { parameters["include"] = .string(include.joined(separator: ",")) }
        let found = try await aroundFindHooks(className, .parameters(parameters), counting: false, caller: caller, hooks: hooks) { query in
            guard query.limit > 0 else { return ([], nil) }
            try await checkIncludes(query.include, of: className)
            let object = try await get(className, id: id, include: query.include, condition: query.predicate, caller: caller)
            return (object.map { [$0] } ?? [], nil)
        }
        return found.objects.first
    }

    /// The object as the caller may see it, if it matches `condition` (checked as a query's).
    private func get(
        _ className: String, id: String, include: [String], condition: QueryPredicate?, caller: Caller
    ) async throws -> StoredObject? {
        let storage = storage(for: caller)
        let access = try await access(for: caller)
        try await access.check(.get, on: className)
        // An object the caller may not read is answered as one that doesn't exist.
        guard let object = try await storage.fetch(className, id: id), access.canRead(object) else {
            guard try await storage.classExists(className) else { throw Self.classNotFound }
            return nil
        }
        if let condition = try await access.authorized(condition: condition, of: className) {
            let matching = ObjectQuery(
                className: className, predicate: .and([.compare(key: "objectId", .equal, .string(id)), condition]), limit: 1)
            guard try await !storage.find(matching).isEmpty else { return nil }
        }
        let included = try await IncludeResolver(access: access, budget: .forAnswer(answerLimits))
            .resolve([try await access.view(object)], paths: include)
        return try await FileValueResolver(access: access).resolve(included)[0]
    }
}
