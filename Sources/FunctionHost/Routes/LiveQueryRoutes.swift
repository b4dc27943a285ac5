import DataAPI
import Hummingbird
import JSON
import LiveQuery

/// `POST /LiveQuery/subscribe` and `/LiveQuery/unsubscribe`: LeanCloud's LiveQuery
/// subscriptions, which the realtime connection logged in with the same `id` then receives.
///
/// Who a subscription acts as is the request's authentication only: its keys and session
/// (`X-LC-Session`), or the body's `sessionToken` (which the Objective-C, Swift and C# SDKs
/// send), validated as a session of the app. Nothing else in the body names a user.
struct LiveQueryRoutes: Sendable {
    let hub: LiveQueryHub
    let data: DataService

    func register(on group: RouterGroup<HostRequestContext>) {
        group.post("LiveQuery/subscribe") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            let caller = try await subscriber(body, context: context)
            let id: String?
            switch body["id"] {
            case nil, .null?: id = nil
            case .string(let text)?: id = text
            default: throw DataAPIError(.badParameters, "id must be a string.")
            }
            return JSONResponse(try await hub.subscribe(id: id, query: body["query"], caller: caller, client: context.clientAddress).json)
        }
        group.post("LiveQuery/unsubscribe") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            guard case .string(let id)? = body["id"], case .string(let queryID)? = body["query_id"] else {
                throw DataAPIError(.badParameters, "id and query_id are required strings.")
            }
            // Unsubscribing what isn't there (a restart forgot it) is no error: it is gone.
            _ = try hub.unsubscribe(id: id, queryID: queryID, caller: context.caller, client: context.clientAddress)
            return JSONResponse([:])
        }
    }

    /// The caller the subscription acts as: the request's, with the user of the body's
    /// `sessionToken` when the request carried no session of its own.
    ///
    /// - Throws: 211 for a session token no user holds (a subscription acting as nobody while
    ///   the app thinks it acts as its user would lose events silently); 119 for a body token
    ///   other than the header's.
    private func subscriber(_ body: [String: JSONValue], context: HostRequestContext) async throws -> Caller {
        var caller = context.caller
        let bodyToken: String?
        switch body["sessionToken"] {
        case nil, .null?: bodyToken = nil
        case .string(let text)?: bodyToken = text.isEmpty ? nil : text
        default: throw DataAPIError(.badParameters, "sessionToken must be a string.")
        }
        if let header = context.sessionToken {
            if let bodyToken, bodyToken != header {
                throw DataAPIError(.operationForbidden, "The body's sessionToken is not the request's session.")
            }
            guard caller.user != nil else { throw Self.unknownSession }
            return caller
        }
        guard let bodyToken else { return caller }
        guard let user = try await data.userJSON(forSessionToken: bodyToken, in: caller.environment) else {
            throw Self.unknownSession
        }
        caller.user = user
        return caller
    }

    private static let unknownSession = DataAPIError(.userNotFound, "Could not find user.")
}
