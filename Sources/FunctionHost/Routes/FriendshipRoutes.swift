import DataAPI
import Hummingbird
import JSON

/// LeanCloud's follow graph: `POST /users/{id}/friendship/{target}` (the body: the follow's
/// attributes), `DELETE /users/{id}/friendship/{target}`, and one user's `followers`,
/// `followees` and `followersAndFollowees` (query parameters as for `/classes`). A user follows
/// as himself; the master key for anyone (`Friendships`).
struct FriendshipRoutes: Sendable {
    let friendships: Friendships

    func register(on group: RouterGroup<HostRequestContext>) {
        group.post("users/:objectId/friendship/:target") { request, context in
            var request = request
            // The Python SDK sends `null` for no attributes.
            let attributes: [String: JSONValue]
            switch try await request.json(context: context) {
            case nil, .null?: attributes = [:]
            case .object(let members)?: attributes = members
            default: throw DataAPIError(.malformedJSON, "A follow's attributes are a JSON object.")
            }
            try await friendships.follow(
                user: try context.parameters.require("objectId"), target: try context.parameters.require("target"),
                attributes: attributes, caller: context.caller)
            return JSONResponse([:])
        }
        group.delete("users/:objectId/friendship/:target") { _, context in
            try await friendships.unfollow(
                user: try context.parameters.require("objectId"), target: try context.parameters.require("target"),
                caller: context.caller)
            return JSONResponse([:])
        }
        for (path, className) in [("followers", "_Follower"), ("followees", "_Followee")] {
            group.get(RouterPath("users/:objectId/\(path)")) { request, context in
                let (results, count) = try await find(className, request: request, context: context)
                var body: [String: JSONValue] = ["results": .array(results)]
                if let count { body["count"] = .int(Int64(count)) }
                return JSONResponse(.object(body))
            }
        }
        group.get("users/:objectId/followersAndFollowees") { request, context in
            let (followers, followerCount) = try await find("_Follower", request: request, context: context)
            let (followees, followeeCount) = try await find("_Followee", request: request, context: context)
            var body: [String: JSONValue] = ["followers": .array(followers), "followees": .array(followees)]
            if let followerCount, let followeeCount {
                body["followers_count"] = .int(Int64(followerCount))
                body["followees_count"] = .int(Int64(followeeCount))
            }
            return JSONResponse(.object(body))
        }
    }

    /// One side of a user's graph as the caller reads it, with its count when asked (`count=1`).
    private func find(_ className: String, request: Request, context: HostRequestContext) async throws -> ([JSONValue], Int?) {
        let parameters = request.queryParameters
        let withCount = ["1", "true"].contains(parameters["count"] ?? "")
        let found = try await friendships.find(
            className, of: try context.parameters.require("objectId"), parameters: ObjectQuery.json(parameters),
            withCount: withCount, caller: context.caller)
        let results: [JSONValue] = found.objects.map { object in
            let json = object.restJSON(includeACL: found.query.returnACL)
            return .object(found.query.keys?.apply(to: json) ?? json)
        }
        return (results, found.count)
    }
}
