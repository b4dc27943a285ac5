import DataAPI
import Hummingbird

/// `POST /batch/save`: how the LeanCloud iOS SDKs save every object, sign-ups included.
///
/// The body is `{"requests": [{"method", "path", "body", "new"?, "params"?}, ...]}`; the answer
/// is one object keyed by each item's `__internalId`, holding the server fields of its object.
/// The SDKs can't read per-item errors from that shape, so any failure fails the whole call with
/// `{"code", "error"}` (see `BatchSavePlan` for what stays written).
struct BatchSaveRoutes: Sendable {
    /// The object operations each item runs through, as the REST routes do.
    let endpoint: ObjectEndpoint
    /// The client's rate, which every item of a batch counts against.
    let limiter: RateLimiter

    /// Adds `POST batch/save` to a version group (`/1.1`, `/1`).
    func register(on group: RouterGroup<HostRequestContext>) {
        group.post("batch/save") { request, context in
            var request = request
            let entries = try BatchRoutes.requests(
                in: try await request.jsonObject(context: context), limiter: limiter, client: context.clientAddress)
            let plan = try BatchSavePlan(entries.enumerated().map { try BatchSaveItem($1, index: $0) })
            // Everything that can be refused without running a hook is, before the first write.
            try await plan.preflight(data: endpoint.data, caller: context.caller)
            let answers = try await plan.run(endpoint: endpoint, caller: context.caller, origin: RequestOrigin(request, context))
            return JSONResponse(.object(answers))
        }
    }
}
