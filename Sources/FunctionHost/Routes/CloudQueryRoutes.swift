import DataAPI
import Hummingbird
import JSON

/// `GET /cloudQuery?cql=...&pvalues=[...]`: CQL queries, answered `{results, className, count?}`.
struct CloudQueryRoutes: Sendable {
    let data: DataService

    func register(on group: RouterGroup<HostRequestContext>) {
        group.get("cloudQuery") { request, context in
            try await answer(request.queryParameters, caller: context.caller)
        }
        group.post("cloudQuery") { request, context in
            // Long statements arrive as a POST body `{"cql": ..., "pvalues": [...]}`.
            var request = request
            let body = try await request.jsonObject(context: context)
            var parameters = request.queryParameters
            if let cql = body["cql"]?.stringValue { parameters["cql"] = cql }
            if let pvalues = body["pvalues"] { parameters["pvalues"] = pvalues.jsonString }
            return try await answer(parameters, caller: context.caller)
        }
    }

    private func answer(_ parameters: [String: String], caller: Caller) async throws -> JSONResponse {
        guard let cql = parameters["cql"], !cql.isEmpty else {
            throw CQLParser.syntaxError("cql is required")
        }
        let pvalues = try parameters["pvalues"].map(Self.pvalues) ?? []
        let statement = try CQLParser.parse(cql, parameters: pvalues)
        var asked = statement.query
        if !statement.wantsRows { asked.limit = 0 }
        // The find hooks run as for any query (they see the statement in its REST form): a
        // class a `beforeFind` narrows is narrowed in CQL too, and its `keys` select the answer.
        let (query, objects, count) = try await data.finding(asked, withCount: statement.wantsCount, caller: caller)
        let results: [JSONValue] = objects.map { object in
            let json = object.restJSON(includeACL: false)
            return .object(query.keys?.apply(to: json) ?? json)
        }
        var body: [String: JSONValue] = ["results": .array(results), "className": .string(query.className)]
        if let count { body["count"] = .int(Int64(count)) }
        return JSONResponse(.object(body))
    }

    /// The `?` values: a JSON array, or the text of one encoded once more as a JSON string, as
    /// the Python SDK sends a list (`do_cloud_query(cql, [a, b])` dumps the list, then dumps
    /// that text again). Empty text gives none.
    static func pvalues(_ text: String) throws -> [JSONValue] {
        guard !text.isEmpty else { return [] }
        switch try? JSONValue(parsing: text) {
        case .array(let values)?:
            return values
        case .string(let inner)?:
            guard case .array(let values)? = try? JSONValue(parsing: inner) else { break }
            return values
        default:
            break
        }
        throw CQLParser.syntaxError("pvalues must be a JSON array")
    }
}
