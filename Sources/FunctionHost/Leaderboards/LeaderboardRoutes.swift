import DataAPI
import Hummingbird
import JSON
import Leaderboards

/// LeanCloud's leaderboard REST API (`/1.1/leaderboard/...`), as its REST guide and the JS SDK
/// call it. Every route is in the authenticated group; who may do what is the service's to decide
/// (`Leaderboards`): boards, resets, archives and objects' or entities' statistics need the
/// master key, a user writes his own statistics, anyone with the app key reads.
///
/// - `POST /leaderboard/leaderboards`, `GET|PUT|DELETE /leaderboard/leaderboards/:name`,
///   `PUT .../:name/incrementVersion`, `GET .../:name/archives?skip&limit`;
/// - rankings: `GET .../:name/ranks[/:id]` (the JS SDK's) and
///   `GET .../(user|object|entity)/:name/ranks[/:id]` (the REST guide's);
/// - statistics: `POST|GET|DELETE /leaderboard/(users|objects|entities)/:id/statistics`
///   (`self` for the signed-in user; `?overwrite=1`, `?statistics=a,b`), and
///   `POST /leaderboard/(users|objects|entities)/statistics/:name` `{"ids": [...]}`.
struct LeaderboardRoutes: Sendable {
    let leaderboards: Leaderboards

    /// The archives a page lists when the request names no limit, and at most.
    static let (defaultArchives, maxArchives) = (20, 100)

    /// Adds every leaderboard route to the authenticated group.
    func register(on group: RouterGroup<HostRequestContext>) {
        let boards = "leaderboard/leaderboards"
        group.post(RouterPath(boards)) { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            return JSONResponse(try await leaderboards.create(body, caller: context.caller).json)
        }
        group.get(RouterPath("\(boards)/:name")) { _, context in
            JSONResponse(try await leaderboards.board(try context.parameters.require("name"), caller: context.caller).json)
        }
        group.put(RouterPath("\(boards)/:name")) { request, context in
            var request = request
            let body = try await request.jsonObject(context: context)
            let name = try context.parameters.require("name")
            return JSONResponse(try await leaderboards.update(name, body, caller: context.caller).json)
        }
        group.delete(RouterPath("\(boards)/:name")) { _, context in
            try await leaderboards.delete(try context.parameters.require("name"), caller: context.caller)
            return JSONResponse([:])
        }
        group.put(RouterPath("\(boards)/:name/incrementVersion")) { _, context in
            JSONResponse(try await leaderboards.reset(try context.parameters.require("name"), caller: context.caller).json)
        }
        group.get(RouterPath("\(boards)/:name/archives")) { request, context in
            let query = request.queryParameters
            let skip = try LeaderboardInput.integer(query["skip"], "skip", max: LeaderboardInput.maxSkip) ?? 0
            let limit = try LeaderboardInput.integer(query["limit"], "limit", max: Self.maxArchives) ?? Self.defaultArchives
            let name = try context.parameters.require("name")
            let results = try await leaderboards.archives(name, skip: skip, limit: limit, caller: context.caller)
            return JSONResponse(["results": .array(results)])
        }
        registerRankings(on: group, path: boards, kind: nil)
        for kind in MemberKind.allCases { registerRankings(on: group, path: "\(boards)/\(kind.rawValue)", kind: kind) }
        for (segment, kind) in [("users", MemberKind.user), ("objects", .object), ("entities", .entity)] {
            registerStatistics(on: group, path: "leaderboard/\(segment)", kind: kind)
        }
    }

    /// A board's rankings, and those around one member.
    private func registerRankings(on group: RouterGroup<HostRequestContext>, path: String, kind: MemberKind?) {
        group.get(RouterPath("\(path)/:name/ranks")) { request, context in
            let options = try RankOptions(parameters: request.queryParameters)
            let name = try context.parameters.require("name")
            let page = try await leaderboards.rankings(name, kind: kind, options: options, caller: context.caller)
            return Self.rankings(page)
        }
        group.get(RouterPath("\(path)/:name/ranks/:id")) { request, context in
            let options = try RankOptions(parameters: request.queryParameters)
            let (name, id) = (try context.parameters.require("name"), try context.parameters.require("id"))
            let page = try await leaderboards.rankings(name, kind: kind, around: id, options: options, caller: context.caller)
            return Self.rankings(page)
        }
    }

    /// `{"results": [...], "count": n}` (the count only when asked).
    private static func rankings(_ page: (results: [JSONValue], count: Int?)) -> JSONResponse {
        var body: [String: JSONValue] = ["results": .array(page.results)]
        if let count = page.count { body["count"] = .int(Int64(count)) }
        return JSONResponse(.object(body))
    }

    /// A member's statistics: written, read and deleted; and several members' on one board.
    private func registerStatistics(on group: RouterGroup<HostRequestContext>, path: String, kind: MemberKind) {
        group.post(RouterPath("\(path)/:id/statistics")) { request, context in
            var request = request
            let overwrite = ["1", "true"].contains(request.queryParameters["overwrite"] ?? "")
            let body = try await request.json(context: context)
            let id = try context.parameters.require("id")
            let results = try await leaderboards.updateStatistics(kind, id: id, body, overwrite: overwrite, caller: context.caller)
            return JSONResponse(["results": .array(results)])
        }
        group.get(RouterPath("\(path)/:id/statistics")) { request, context in
            let names = try LeaderboardInput.names(request.queryParameters["statistics"])
            let id = try context.parameters.require("id")
            return JSONResponse(["results": .array(try await leaderboards.statistics(kind, id: id, names: names, caller: context.caller))])
        }
        group.delete(RouterPath("\(path)/:id/statistics")) { request, context in
            let names = try LeaderboardInput.names(request.queryParameters["statistics"])
            try await leaderboards.deleteStatistics(kind, id: try context.parameters.require("id"), names: names, caller: context.caller)
            return JSONResponse([:])
        }
        group.post(RouterPath("\(path)/statistics/:name")) { request, context in
            var request = request
            let body = try await request.json(context: context)
            let name = try context.parameters.require("name")
            return JSONResponse(["results": .array(try await leaderboards.statistics(kind, of: name, ids: body, caller: context.caller))])
        }
    }
}
