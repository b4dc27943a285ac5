import DataAPI
import Hummingbird
import JSON

/// LeanCloud's statuses (`Statuses`): `POST /statuses` sends one, `GET /statuses/{id}` reads
/// one as the caller may, `DELETE /statuses/{id}` deletes one (its sender, or the master key);
/// `GET /subscribe/statuses` reads an inbox, `GET /subscribe/statuses/count` counts it,
/// `POST /subscribe/statuses/resetUnreadCount` marks it read, `DELETE /subscribe/statuses/inbox`
/// removes one message from it (each: the caller's own inbox, or any with the master key).
struct StatusRoutes: Sendable {
    let statuses: Statuses

    func register(on group: RouterGroup<HostRequestContext>) {
        group.post("statuses") { request, context in
            var request = request
            let status = try await statuses.send(try await request.jsonObject(context: context), caller: context.caller)
            return JSONResponse(
                status: .created, ["objectId": .string(status.objectId), "createdAt": .string(status.createdAt)])
        }
        group.get("statuses/:objectId") { request, context in
            let include = request.queryParameters["include"].map(ObjectQuery.includePaths) ?? []
            let status = try await statuses.data.fetch(
                "_Status", id: try context.parameters.require("objectId"), include: include, caller: context.caller)
            return JSONResponse(.object(status?.restJSON() ?? [:]))
        }
        group.delete("statuses/:objectId") { _, context in
            try await statuses.delete(id: try context.parameters.require("objectId"), caller: context.caller)
            return JSONResponse([:])
        }
        group.get("subscribe/statuses") { request, context in
            try await Self.inbox(statuses, parameters: request.queryParameters, caller: context.caller)
        }
        group.get("subscribe/statuses/count") { request, context in
            let counts = try await statuses.count(ObjectQuery.json(request.queryParameters), caller: context.caller)
            return JSONResponse(["total": .int(Int64(counts.total)), "unread": .int(Int64(counts.unread))])
        }
        group.post("subscribe/statuses/resetUnreadCount") { request, context in
            // The JS SDK sends the owner in the body, newer SDKs in the query string.
            var request = request
            var parameters = ObjectQuery.json(request.queryParameters)
            for (key, value) in try await request.jsonObject(context: context) { parameters[key] = value }
            try await statuses.resetUnreadCount(parameters, caller: context.caller)
            return JSONResponse([:])
        }
        group.delete("subscribe/statuses/inbox") { request, context in
            try await statuses.removeFromInbox(ObjectQuery.json(request.queryParameters), caller: context.caller)
            return JSONResponse([:])
        }
    }

    /// An inbox page as `{"results": [...]}`: also what a `/batch` GET of `/subscribe/statuses`
    /// answers (the JS SDK sends a long inbox query that way).
    static func inbox(_ statuses: Statuses, parameters: [String: String], caller: Caller) async throws -> JSONResponse {
        JSONResponse(["results": .array(try await statuses.inbox(ObjectQuery.json(parameters), caller: caller))])
    }
}
