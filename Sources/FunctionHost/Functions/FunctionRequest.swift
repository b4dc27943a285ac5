import CallSupport
public import DataAPI
import Hooks
import Foundation
import HTTPTypes
public import JSON
public import Logging

/// What a cloud function receives: its parameters, who called it and how, and the data API.
public struct FunctionRequest: Sendable {
    /// The parameters (the JSON body; typed values decoded for `rpc`).
    public var params: JSONValue
    /// The caller's session token (`X-LC-Session`), if any.
    public var sessionToken: String?
    /// The user the session token belongs to, as its REST JSON; nil without a session token or
    /// when the function is registered with `fetchesUser: false`.
    public var currentUser: JSONValue?
    /// Whether the call came through `/call` (rpc): typed values keep their `__type` both ways.
    public var isRPC: Bool
    /// The client's address, from `X-Real-IP`, `X-Forwarded-For` or the connection.
    public var remoteAddress: String?
    /// Whether the caller used the master key.
    public var isMaster: Bool
    /// The environment whose code serves the call: `production`, or `staging` with `X-LC-Prod: 0`.
    /// Its writes run the hooks of `data.caller.environment`: production's for a client's call
    /// when staging shares production's data.
    public var environment: EnvironmentName
    /// The environment's variables (`functionhost env set`), secrets included: LeanEngine's
    /// `process.env`.
    public var variables: [String: String]
    /// A logger tagged with the function's name and the request id.
    public var logger: Logger {
        get { taggedLogger.logger }
        set { taggedLogger = TaggedLogger(newValue, tags: [:]) }
    }
    /// The logger and its tags, apart until something is logged.
    var taggedLogger: TaggedLogger
    /// When the call must have answered.
    public var deadline: ContinuousClock.Instant
    /// The data API, acting as the caller (its user's ACL rights; the master key only if the
    /// request carried it): create, fetch, update, delete and query objects through the same
    /// service the REST routes use. `data.asMaster` acts with the master key.
    public var data: DataClient
    /// The Cloud Queue, for this function's code: `request.queue.enqueue(TaskRequest(...))` runs
    /// a function later, in this environment, as the master unless the request names a user.
    public var queue = TaskQueueClient(queue: nil, environment: .production)
    /// Every function of the host, for `run`.
    let functions: FunctionRegistry
    /// Where a script's search results link to (`_app_url`, `_deeplink`): this server as the
    /// request reached it. Nil where no request is served from (such results carry no links).
    var searchLinks: SearchLinkSource? = nil

    /// Calls another function of the host in process, as `AV.Cloud.run` does: same caller,
    /// same deadline, no HTTP. Internal functions may be called this way. With a
    /// `sessionToken` (`AV.Cloud.run(name, params, {sessionToken | user})`), the function runs
    /// as that token's user: its `currentUser`, and its data calls with that user's rights.
    ///
    /// - Throws: 404 code 1 for an unknown name, as `POST /functions/{name}` answers; 211 for a
    ///   token no user holds.
    public func run(_ name: String, params: JSONValue = .object([:]), sessionToken: String? = nil) async throws -> JSONValue {
        guard let entry = functions.entries[name] else {
            throw CloudError(code: 1, message: "No such cloud function '\(name)'.", status: .notFound)
        }
        var request = self
        request.params = params
        if let sessionToken, !sessionToken.isEmpty {
            // The token is the calling code's choice (server code), never a client's.
            guard let user = try await data.service.userJSON(forSessionToken: sessionToken, in: data.caller.environment) else {
                throw DataAPIError(.userNotFound, "Could not find user.")
            }
            var caller = data.caller
            caller.user = user
            request.sessionToken = sessionToken
            request.currentUser = user
            request.data = DataClient(service: data.service, caller: caller)
        }
        request.taggedLogger.tags["function"] = .string(name)
        return try await entry.handler(request)
    }

    /// The parameters decoded into a `Decodable` type.
    public func decodeParams<T: Decodable>(as type: T.Type) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(params.jsonBytes))
        } catch {
            throw CloudError(code: 1, message: "Invalid parameters: \(error)")
        }
    }
}
