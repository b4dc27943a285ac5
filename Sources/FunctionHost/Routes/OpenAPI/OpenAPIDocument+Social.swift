import DataAPI

extension OpenAPIDocument {
    /// The follow graph and statuses (`FriendshipRoutes`, `StatusRoutes`): a user acts as
    /// himself, the master key for anyone.
    static let socialOperations: [APIOperation] = [
        APIOperation(
            "post", "/users/{objectId}/friendship/{target}", tag: "Friendships",
            "The user follows target; the body is the follow's attributes (the user's session, or the master key).",
            body: APIOperation.object([:])),
        APIOperation(
            "delete", "/users/{objectId}/friendship/{target}", tag: "Friendships",
            "The user no longer follows target (the user's session, or the master key)."),
        APIOperation(
            "get", "/users/{objectId}/followers", tag: "Friendships", "The user's _Follower rows (where, include, keys, limit, skip, count).",
            answer: APIOperation.ref("Results")),
        APIOperation(
            "get", "/users/{objectId}/followees", tag: "Friendships", "The user's _Followee rows (where, include, keys, limit, skip, count).",
            answer: APIOperation.ref("Results")),
        APIOperation(
            "get", "/users/{objectId}/followersAndFollowees", tag: "Friendships",
            "{followers, followees} (with followers_count and followees_count when count=1)."),
        APIOperation(
            "post", "/statuses", tag: "Statuses",
            "Send a status as the signed-in user (the master key: as data.source) to the users query finds: {objectId, createdAt}.",
            body: APIOperation.object(["data": "object", "query": "object", "inboxType": "string"], required: ["query"]),
            success: "201"),
        APIOperation("get", "/statuses/{objectId}", tag: "Statuses", "A status, as the caller may read it."),
        APIOperation("delete", "/statuses/{objectId}", tag: "Statuses", "Delete a status its sender sent; it leaves every inbox."),
        APIOperation(
            "get", "/subscribe/statuses", tag: "Statuses", "The caller's inbox, newest first, each status with its messageId.",
            query: inboxParameters + [
                .init(name: "sinceId", type: "integer", description: "Only messages after this one."),
                .init(name: "maxId", type: "integer", description: "Only messages up to this one."),
                .init(name: "limit", type: "integer", description: "At most this many (0-1000, default 100)."),
                .init(name: "where", type: "string", description: "A condition on the statuses."),
            ], answer: APIOperation.ref("Results")),
        APIOperation(
            "get", "/subscribe/statuses/count", tag: "Statuses", "{total, unread} of the caller's inbox.", query: inboxParameters),
        APIOperation(
            "post", "/subscribe/statuses/resetUnreadCount", tag: "Statuses", "Mark the caller's inbox read.",
            body: APIOperation.object(["owner": "object", "inboxType": "string"])),
        APIOperation(
            "delete", "/subscribe/statuses/inbox", tag: "Statuses", "Remove one message from the caller's inbox.",
            query: inboxParameters + [.init(name: "messageId", type: "integer", description: "The message.", required: true)]),
    ]

    /// The parameters naming an inbox.
    private static let inboxParameters: [APIOperation.Parameter] = [
        .init(name: "owner", type: "string", description: "The owner, a _User Pointer as JSON (the caller's own user; the master key: anyone's)."),
        .init(name: "inboxType", type: "string", description: "default (the timeline), private, or the app's own."),
    ]
}
