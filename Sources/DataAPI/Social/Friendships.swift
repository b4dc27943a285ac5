public import JSON

/// LeanCloud's follow graph: `POST|DELETE /users/{id}/friendship/{target}` write a follow as two
/// rows, one in `_Followee` (`user` follows `followee`) and one in `_Follower` (`user` is
/// followed by `follower`), both carrying the follow's attributes, so either side is an ordinary
/// query (`followeeQuery`, `followerQuery`). Only this type writes them (clients can't write
/// system classes through `/classes`); both are readable by everyone, as LeanCloud's are.
public struct Friendships: Sendable {
    /// Where the rows are read and written.
    public let data: DataService

    /// The most attributes one follow may carry.
    public static let maxAttributes = 32
    /// Fields the host sets on a follow row; attributes may not name them.
    static let rowFields: Set<String> = ["user", "follower", "followee", "ACL"]

    /// Creates the graph over a data service.
    public init(data: DataService) {
        self.data = data
    }

    /// `user` follows `target`, the rows carrying `attributes`. A user follows as himself only;
    /// the master key for anyone.
    ///
    /// - Throws: 206/119 (see `SocialRules.actingUser`), 104 for a malformed id, 211 when the
    ///   target is no user, 1 for following oneself, 105 for an attribute the rows own or past
    ///   `maxAttributes`, 137 when `user` follows `target` already.
    public func follow(user: String, target: String, attributes: [String: JSONValue], caller: Caller) async throws {
        let user = try SocialRules.actingUser(caller, named: try SocialRules.userId(user), doing: "Following")
        let target = try SocialRules.userId(target)
        guard user != target else { throw DataAPIError(.badParameters, "A user can't follow himself.") }
        try Self.check(attributes)
        let server = SocialRules.server(for: caller)
        guard try await data.fetch("_User", id: target, caller: server) != nil else {
            throw DataAPIError(.userNotFound, "Could not find user.")
        }
        guard try await rows(SocialRules.followeeClass, user: user, key: "followee", other: target, server).isEmpty else {
            throw Self.alreadyFollowed
        }
        let acl: JSONValue = ["*": ["read": true]]
        var followee = attributes
        followee["user"] = SocialRules.pointer(user)
        followee["followee"] = SocialRules.pointer(target)
        followee["ACL"] = acl
        var follower = attributes
        follower["user"] = SocialRules.pointer(target)
        follower["follower"] = SocialRules.pointer(user)
        follower["ACL"] = acl
        // Both rows in one transaction, under the pair's lock: a follow racing an unfollow (or
        // another follow) of the same pair leaves both rows or neither. Each row's id is made
        // from the pair, so a second follow fails on the first's `_Followee` row (137).
        let writes: [LockedWrite] = [
            try data.lockedCreate(SocialRules.followeeClass, body: followee, objectId: Self.followeeId(user, target), caller: server),
            // A `_Follower` row left alone (written with the master key through /classes) is replaced.
            .delete(SocialRules.followerClass, [Self.followerId(user, target)]),
            try data.lockedCreate(SocialRules.followerClass, body: follower, objectId: Self.followerId(user, target), caller: server),
        ]
        do {
            _ = try await data.writeLocked(writes, lockedBy: Self.pairLock(user, target), caller: server)
        } catch let error as DataAPIError where error.code == .duplicateValue {
            throw Self.alreadyFollowed
        }
    }

    /// `user` no longer follows `target`: both rows go (those an import brought, whatever their
    /// ids, too), in one transaction under the pair's lock. Following nobody is no error, as
    /// LeanCloud answers it.
    ///
    /// - Throws: 206/119 (see `SocialRules.actingUser`), 104 for a malformed id.
    public func unfollow(user: String, target: String, caller: Caller) async throws {
        let user = try SocialRules.actingUser(caller, named: try SocialRules.userId(user), doing: "Unfollowing")
        let target = try SocialRules.userId(target)
        let server = SocialRules.server(for: caller)
        // Rows under other ids come from an import only (this type writes the pair's ids), so
        // they are found before the lock; the pair's own rows are deleted inside it.
        let followees = try await rows(SocialRules.followeeClass, user: user, key: "followee", other: target, server)
        let followers = try await rows(SocialRules.followerClass, user: target, key: "follower", other: user, server)
        let writes: [LockedWrite] = [
            .delete(SocialRules.followeeClass, [Self.followeeId(user, target)] + followees),
            .delete(SocialRules.followerClass, [Self.followerId(user, target)] + followers),
        ]
        _ = try await data.writeLocked(writes, lockedBy: Self.pairLock(user, target), caller: server)
    }

    /// The `_Followee` row's id of `user` following `target`.
    static func followeeId(_ user: String, _ target: String) -> String { SocialRules.derivedId("followee", user, target) }

    /// The `_Follower` row's id of `user` following `target` (`target` followed by `user`).
    static func followerId(_ user: String, _ target: String) -> String { SocialRules.derivedId("follower", target, user) }

    /// The lock every write of one follow (`user` → `target`) takes.
    static func pairLock(_ user: String, _ target: String) -> String { SocialRules.derivedId("follow-pair", user, target) }

    /// A query of one user's followers (`_Follower`) or followees (`_Followee`) as the caller
    /// may read them: the REST parameters given (`where`, `include`, `keys`, `limit`, ...) with
    /// `user` fixed to `id`.
    ///
    /// - Throws: 104 for a malformed id; what the query itself throws.
    public func find(
        _ className: String, of id: String, parameters: [String: JSONValue], withCount: Bool, caller: Caller
    ) async throws -> (query: ObjectQuery, objects: [StoredObject], count: Int?) {
        let id = try SocialRules.userId(id)
        var parameters = parameters
        let mine: JSONValue = ["user": SocialRules.pointer(id)]
        switch parameters["where"] {
        case nil, .null?, .string("")?: parameters["where"] = mine
        case .string(let text)?: parameters["where"] = ["$and": [try JSONValue(parsingWhere: text), mine]]
        case let condition?: parameters["where"] = ["$and": [condition, mine]]
        }
        return try await data.find(className, query: parameters, withCount: withCount, caller: caller)
    }

    /// The ids of the rows of `className` where `user` points at `user` and `key` at `other`.
    private func rows(_ className: String, user: String, key: String, other: String, _ server: Caller) async throws -> [String] {
        let condition = try QueryPredicate(where: .object(["user": SocialRules.pointer(user), key: SocialRules.pointer(other)]))
        let query = ObjectQuery(className: className, predicate: condition, limit: 10)
        return try await data.find(query, caller: server).objects.map(\.objectId)
    }

    private static func check(_ attributes: [String: JSONValue]) throws(DataAPIError) {
        guard attributes.count <= maxAttributes else {
            throw DataAPIError(.invalidKeyName, "A follow carries at most \(maxAttributes) attributes.")
        }
        for key in attributes.keys where rowFields.contains(key) || !Names.isValidFieldName(key) {
            throw DataAPIError(.invalidKeyName, "A follow's attribute can't be named '\(key)'.")
        }
    }

    static let alreadyFollowed = DataAPIError(.duplicateValue, "The user already follows this user.")
}

extension JSONValue {
    /// A `where` given as JSON text, parsed (107 when it isn't JSON).
    init(parsingWhere text: String) throws(DataAPIError) {
        do {
            self = try JSONValue(parsing: Array(text.utf8))
        } catch {
            throw DataAPIError(.malformedJSON, "where is not valid JSON.")
        }
    }
}
