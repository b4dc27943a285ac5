import DataAPI

/// What a rankings request asks for, from its query string: the JS SDK's names (`skip`,
/// `limit`, `selectUserKeys`, `includeUser`) or the REST API's (`startPosition`,
/// `maxResultsCount`, `selectKeys`, `includeKeys`), with `includeStatistics`, `version` and
/// `count`. Every one is bounded.
public struct RankOptions: Sendable, Hashable {
    /// Rankings skipped.
    public var skip = 0
    /// Rankings answered at most.
    public var limit = LeaderboardInput.defaultLimit
    /// The members' fields answered (users and objects).
    public var selectKeys: [String] = []
    /// The members' pointer fields answered as the objects they point to.
    public var includeKeys: [String] = []
    /// Other boards whose statistics each ranking carries.
    public var includeStatistics: [String] = []
    /// The version ranked: the current one, or the one before it.
    public var version: Int?
    /// Whether the answer carries the board's member count.
    public var count = false

    /// No option: the first page of the current version.
    public init() {}

    /// The options of a query string.
    public init(parameters: [String: String]) throws(LeaderboardError) {
        skip = try LeaderboardInput.integer(parameters["skip"] ?? parameters["startPosition"], "skip", max: LeaderboardInput.maxSkip) ?? 0
        limit =
            try LeaderboardInput.integer(parameters["limit"] ?? parameters["maxResultsCount"], "limit", max: LeaderboardInput.maxLimit)
            ?? LeaderboardInput.defaultLimit
        let include = try Self.keys(parameters["includeUser"] ?? parameters["includeKeys"], "includeKeys", paths: true)
        // An included key is answered whether or not it was selected, as the JS SDK selects it too.
        selectKeys = try Self.keys(parameters["selectUserKeys"] ?? parameters["selectKeys"], "selectKeys", paths: false)
        for key in include where !selectKeys.contains(Self.root(key)) { selectKeys.append(Self.root(key)) }
        includeKeys = include
        includeStatistics = try LeaderboardInput.names(parameters["includeStatistics"]) ?? []
        version = try LeaderboardInput.integer(parameters["version"], "version", max: Int(Int32.max))
        count = ["1", "true"].contains(parameters["count"] ?? "")
    }

    /// The first field of a dotted path.
    private static func root(_ path: String) -> String {
        String(path.split(separator: ".", maxSplits: 1).first ?? Substring(path))
    }

    /// Fields a member may be answered with: its own, never its password or session (a user's
    /// other private fields are hidden by the data service's view of the caller).
    private static func keys(_ list: String?, _ name: String, paths: Bool) throws(LeaderboardError) -> [String] {
        guard let list, !list.isEmpty else { return [] }
        var keys: [String] = []
        for key in list.split(separator: ",", omittingEmptySubsequences: true).map(String.init) where !keys.contains(key) {
            let valid = paths ? Names.isValidKeyPath(key) : Names.isValidFieldName(key)
            guard valid, !["password", "sessionToken", "authData", "ACL"].contains(root(key)) else {
                throw .badRequest("\(name) names a field that can't be answered: \(key.prefix(64)).")
            }
            keys.append(key)
        }
        guard keys.count <= LeaderboardInput.maxKeys else { throw .badRequest("\(name) names at most \(LeaderboardInput.maxKeys) fields.") }
        return keys
    }
}
