import DataAPI
import Hummingbird

/// The user API: signup (`POST /users`), `POST /login`, `GET /users/me`,
/// `PUT /users/{id}/updatePassword`, `PUT /users/{id}/refreshSessionToken`, `POST /logout`, and
/// `/users[/{id}]` as `/classes/_User[/{id}]`.
struct UserRoutes: Sendable {
    let endpoint: ObjectEndpoint
    let accounts: UserAccounts

    func register(on group: RouterGroup<HostRequestContext>) {
        ClassAliasRoutes(endpoint: endpoint, path: "users", className: "_User").register(on: group)
        for path in ["login", "users/login"] {
            group.post(RouterPath(path)) { request, context in
                var request = request
                let body = try await request.jsonObject(context: context)
                return JSONResponse(
                    try await accounts.logIn(body, caller: context.caller, client: context.clientAddress))
            }
        }
        group.get("users/me") { _, context in
            guard let token = context.sessionToken else {
                throw HostError(status: .badRequest, code: 211, message: "Could not find user.")
            }
            return JSONResponse(try await accounts.currentUser(sessionToken: token, caller: context.caller))
        }
        // LeanCloud keeps one session token per user, shared by every device it signed in on, and
        // its SDKs' logOut only forgets it locally (the PHP SDK's `POST /logout` ignores the
        // answer): a logout ends no session, or one device's logout would end them all. A token
        // ends with `refreshSessionToken`, a password change or reset.
        group.post("logout") { _, _ in
            JSONResponse([:])
        }
        group.put("users/:objectId/updatePassword") { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            let user = try await accounts.updatePassword(
                id: try context.parameters.require("objectId"), old: body["old_password"]?.stringValue ?? "",
                new: body["new_password"]?.stringValue ?? "", caller: context.caller)
            return JSONResponse(user)
        }
        group.put("users/:objectId/refreshSessionToken") { _, context in
            JSONResponse(
                try await accounts.refreshSessionToken(id: try context.parameters.require("objectId"), caller: context.caller))
        }
    }
}
