import DataAPI
import Hummingbird
import JSON

/// `POST /batch`: many object requests in one, each answered in order with `{"success": ...}`
/// or `{"error": {"code", "error"}}`; one failing request doesn't stop the others.
struct BatchRoutes: Sendable {
    let endpoint: ObjectEndpoint
    /// The client's rate, which every item of a batch counts against.
    let limiter: RateLimiter
    /// The most requests one batch may carry.
    static let maxRequests = 500
    /// How long the batch runs items (`HostConfiguration.batchTime`); items not started by then
    /// answer 124.
    let maxTime: Duration
    /// What an item not started within `maxTime` answers.
    static let outOfTime = DataAPIError(.requestTimeout, "The batch ran past its time budget: this request was not run.")
    /// The statuses, for a `GET /subscribe/statuses` item: the JS SDK batches an inbox query
    /// whose URL would be too long.
    var statuses: Statuses?

    func register(on group: RouterGroup<HostRequestContext>) {
        group.post("batch") { request, context in
            var request = request
            let requests = try Self.requests(
                in: try await request.jsonObject(context: context), limiter: limiter, client: context.clientAddress)
            let caller = context.caller
            let origin = RequestOrigin(request, context)
            // A dialect's batch (`DialectBatch`) answers each delete with how many objects it deleted.
            let countsDeletes = context.dialect != nil
            // One answer budget for every item: 500 reads share what one answer may carry.
            let results = await AnswerBudget.sharing(endpoint.data.answerLimits) {
                var results: [JSONValue] = []
                results.reserveCapacity(requests.count)
                let deadline = ContinuousClock.now + maxTime
                for entry in requests {
                    do {
                        guard ContinuousClock.now < deadline else { throw Self.outOfTime }
                        let response = try await perform(entry, caller: caller, origin: origin, countsDeletes: countsDeletes)
                        results.append(["success": response.body])
                    } catch {
                        let mapped = HostError(mapping: error)
                            ?? HostError(status: .internalServerError, code: 1, message: "Internal server error.")
                        results.append(["error": ["code": .int(Int64(mapped.code)), "error": .string(mapped.message)]])
                    }
                }
                return results
            }
            return JSONResponse(.array(results))
        }
    }

    /// The `requests` array of a batch body (`/batch` and `/batch/save` alike), its items
    /// counted against the client's rate: each is a request of its own, and a batch of 500
    /// reads would otherwise cost what one does.
    ///
    /// - Throws: 107 when it is missing or not an array, 400 code 1 past `maxRequests`, 429 when
    ///   the client is past its rate.
    static func requests(in body: [String: JSONValue], limiter: RateLimiter, client: String?) throws -> [JSONValue] {
        guard case .array(let requests)? = body["requests"] else {
            throw DataAPIError(.malformedJSON, "A batch needs a requests array.")
        }
        guard requests.count <= maxRequests else {
            throw HostError(status: .badRequest, code: 1, message: "A batch may hold at most \(maxRequests) requests.")
        }
        // The request itself took one token in `RateLimitMiddleware`; the other items take theirs.
        try limiter.admit(client: client ?? "unknown", further: requests.count - 1)
        return requests
    }

    private func perform(_ entry: JSONValue, caller: Caller, origin: RequestOrigin, countsDeletes: Bool) async throws -> JSONResponse {
        guard case .string(let method)? = entry["method"], case .string(let rawPath)? = entry["path"] else {
            throw DataAPIError(.malformedJSON, "Each batch request needs a method and a path.")
        }
        let (segments, parameters) = Self.route(rawPath)
        let body = entry["body"]?.objectValue ?? [:]
        var allParameters = parameters
        if case .object(let extra)? = entry["params"] {
            for (key, value) in extra { allParameters[key] = value.stringValue ?? value.jsonString }
        }
        if let statuses, method.uppercased() == "GET", let query = Self.inboxQuery(rawPath) {
            var inboxParameters = Request.formParameters(query)
            for (key, value) in allParameters { inboxParameters[key] = value }
            return try await StatusRoutes.inbox(statuses, parameters: inboxParameters, caller: caller)
        }
        switch (method.uppercased(), segments.count) {
        case ("POST", 2):
            return try await endpoint.create(segments[1], body: body, parameters: allParameters, caller: caller, origin: origin)
        case ("GET", 2):
            return try await endpoint.find(segments[1], parameters: allParameters, caller: caller)
        case ("GET", 3):
            let fetched = try await endpoint.fetch(segments[1], id: segments[2], parameters: allParameters, caller: caller)
            // A missing object is `{"success": null}` in a batch, as LeanCloud answers it (a single
            // GET answers `{}`): the SDKs' fetchAll turns it into "Object not found.".
            return fetched.body == [:] ? JSONResponse(.null) : fetched
        case ("PUT", 3):
            return try await endpoint.update(segments[1], id: segments[2], body: body, parameters: allParameters, caller: caller)
        case ("DELETE", 3) where countsDeletes:
            let ids = segments[2].split(separator: ",", omittingEmptySubsequences: true).map(String.init)
            let deleted = try await endpoint.deleteExisting(segments[1], ids: ids, body: body, parameters: allParameters, caller: caller)
            return JSONResponse(["number": .int(Int64(deleted))])
        case ("DELETE", 3):
            return try await endpoint.delete(segments[1], id: segments[2], body: body, parameters: allParameters, caller: caller)
        default:
            throw HostError(status: .badRequest, code: 107, message: "Unsupported batch request: \(method) \(rawPath).")
        }
    }

    /// The query string of a batch item's path when it is an inbox query,
    /// `/1.1/subscribe/statuses[?...]`; nil for any other path.
    private static func inboxQuery(_ rawPath: String) -> Substring? {
        let parts = rawPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard ["/1.1/subscribe/statuses", "/1/subscribe/statuses"].contains(String(parts[0])) else { return nil }
        return parts.count > 1 ? parts[1] : ""
    }

    /// `/1.1/classes/Post/abc?fetchWhenSave=true` → (["classes", "Post", "abc"], ["fetchWhenSave": "true"]);
    /// `/1.1/roles/abc` → (["classes", "_Role", "abc"], [:]); `/1.1/files/abc` → (["classes", "_File", "abc"], [:]).
    private static func route(_ rawPath: String) -> ([String], [String: String]) {
        let parts = rawPath.split(separator: "?", maxSplits: 1)
        var segments = (parts.first ?? "").split(separator: "/").map(String.init)
        if let first = segments.first, first == "1.1" || first == "1" { segments.removeFirst() }
        // `/users[/{id}]` and `/roles[/{id}]` are their classes, as on their own routes.
        if let first = segments.first, let className = BatchSaveItem.aliases[first] {
            segments = ["classes", className] + segments.dropFirst()
        }
        // `+[LCFile deleteWithFiles:]` batches `DELETE /1.1/files/<id>`: the `_File` of that id.
        if segments.count == 2, segments[0] == "files" { segments = ["classes", "_File", segments[1]] }
        guard segments.first == "classes", (2...3).contains(segments.count) else { return ([], [:]) }
        return (segments, parts.count > 1 ? Request.formParameters(parts[1]) : [:])
    }
}
