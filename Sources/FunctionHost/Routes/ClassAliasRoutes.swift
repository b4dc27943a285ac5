import DataAPI
import Hummingbird

/// A system class under a path of its own (`/users` for `_User`, `/roles` for `_Role`): the
/// same create, query, get, update and delete as `/classes/{Class}`.
struct ClassAliasRoutes: Sendable {
    let endpoint: ObjectEndpoint
    /// The path (`users`).
    let path: String
    /// The class it stands for (`_User`).
    let className: String

    func register(on group: RouterGroup<HostRequestContext>) {
        let one = RouterPath(path + "/:objectId")
        group.post(RouterPath(path)) { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            return try await endpoint.create(
                className, body: body, parameters: request.queryParameters, caller: context.caller, origin: RequestOrigin(request, context))
        }
        group.get(RouterPath(path)) { request, context in
            try await endpoint.find(className, parameters: request.queryParameters, caller: context.caller)
        }
        group.get(one) { request, context in
            try await endpoint.fetch(
                className, id: try context.parameters.require("objectId"), parameters: request.queryParameters,
                caller: context.caller)
        }
        group.put(one) { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            return try await endpoint.update(
                className, id: try context.parameters.require("objectId"), body: body,
                parameters: request.queryParameters, caller: context.caller)
        }
        group.delete(one) { request, context in
            try await endpoint.delete(
                className, id: try context.parameters.require("objectId"), parameters: request.queryParameters,
                caller: context.caller)
        }
    }
}
