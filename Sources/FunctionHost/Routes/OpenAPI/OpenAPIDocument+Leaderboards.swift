import DataAPI

extension OpenAPIDocument {
    /// The leaderboards (`LeaderboardRoutes`).
    static var leaderboardOperations: [APIOperation] {
        let tag = "Leaderboards"
        let boards = "/leaderboard/leaderboards"
        let settings: [String: String] = ["updateStrategy": "string", "versionChangeInterval": "string"]
        var operations = [
            APIOperation(
                "post", boards, tag: tag,
                "Create a leaderboard: statisticName, memberType (_User, _Entity or a class), order, updateStrategy, versionChangeInterval (master key).",
                access: .master,
                body: APIOperation.object(
                    settings.merging(["statisticName": "string", "memberType": "string", "order": "string"]) { $1 },
                    required: ["statisticName"])),
            APIOperation("get", "\(boards)/{name}", tag: tag, "A leaderboard: its settings, version, activatedAt and expiredAt."),
            APIOperation(
                "put", "\(boards)/{name}", tag: tag, "Change a leaderboard's updateStrategy or versionChangeInterval (master key).",
                access: .master, body: APIOperation.object(settings)),
            APIOperation(
                "delete", "\(boards)/{name}", tag: tag, "Delete a leaderboard with its statistics and archives (master key).",
                access: .master),
            APIOperation(
                "put", "\(boards)/{name}/incrementVersion", tag: tag, "Reset: archive the current version and start the next (master key).",
                access: .master, body: APIOperation.object([:])),
            APIOperation(
                "get", "\(boards)/{name}/archives", tag: tag, "The versions a leaderboard ended, newest first (master key).",
                access: .master, query: page, answer: APIOperation.ref("Results")),
        ]
        for prefix in ["", "/user", "/object", "/entity"] {
            operations.append(
                APIOperation(
                    "get", "\(boards)\(prefix)/{name}/ranks", tag: tag, "A page of rankings (count=1 adds the member count).",
                    query: rankQuery, answer: APIOperation.ref("Results")))
            operations.append(
                APIOperation(
                    "get", "\(boards)\(prefix)/{name}/ranks/{id}", tag: tag, "The rankings around a member (self: the signed-in user).",
                    query: rankQuery, answer: APIOperation.ref("Results")))
        }
        for members in ["users", "objects", "entities"] {
            let statistics = "/leaderboard/\(members)/{id}/statistics"
            operations += [
                APIOperation(
                    "post", statistics, tag: tag,
                    "Write a member's statistics by each board's strategy (master key; a user his own, as self); overwrite=1 writes as last (master key).",
                    query: [.init(name: "overwrite", type: "integer", description: "1 ignores the boards' strategies.")],
                    body: ["type": "array", "items": APIOperation.object(["statisticName": "string", "statisticValue": "number"])],
                    answer: APIOperation.ref("Results")),
                APIOperation(
                    "get", statistics, tag: tag, "A member's statistics in the current versions.", query: [namesParameter],
                    answer: APIOperation.ref("Results")),
                APIOperation(
                    "delete", statistics, tag: tag, "Delete a member's statistics (master key; a user his own).",
                    query: [namesParameter]),
                APIOperation(
                    "post", "/leaderboard/\(members)/statistics/{name}", tag: tag, "Several members' statistics on one board (at most 200 ids).",
                    body: APIOperation.object(["ids": "array"], required: ["ids"]), answer: APIOperation.ref("Results")),
            ]
        }
        return operations
    }

    /// `statistics=a,b`.
    private static let namesParameter = APIOperation.Parameter(
        name: "statistics", type: "string", description: "Statistic names, comma-separated.")

    /// `skip` and `limit`.
    private static let page: [APIOperation.Parameter] = [
        .init(name: "skip", type: "integer", description: "Skip this many."),
        .init(name: "limit", type: "integer", description: "At most this many."),
    ]

    /// A rankings request's parameters (the JS SDK's names; the REST guide's are accepted too).
    private static let rankQuery: [APIOperation.Parameter] =
        page + [
            .init(name: "selectUserKeys", type: "string", description: "The members' fields answered (selectKeys)."),
            .init(name: "includeUser", type: "string", description: "Pointer fields answered as objects (includeKeys)."),
            .init(name: "includeStatistics", type: "string", description: "Other boards whose statistics each ranking carries."),
            .init(name: "version", type: "integer", description: "The current version or the one before it."),
            .init(name: "count", type: "integer", description: "1 adds the member count."),
        ]
}
