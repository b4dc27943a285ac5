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
        // Each row under an id made from the pair: two follows racing make one, the other 137.
        do {
            _ = try await data.create(
                SocialRules.followeeClass, body: followee, objectId: SocialRules.derivedId("followee", user, target), caller: server)
        } catch let error as DataAPIError where error.code == .duplicateValue {
            throw Self.alreadyFollowed
        }
        do {
            _ = try await data.create(
                SocialRules.followerClass, body: follower, objectId: SocialRules.derivedId("follower", target, user), caller: server)
        } catch let error as DataAPIError where error.code == .duplicateValue {
            // A row left by an earlier follow whose `_Followee` row was removed: the pair stands.
        } catch {
            // The follow is both rows or neither.
            try? await data.delete(SocialRules.followeeClass, id: SocialRules.derivedId("followee", user, target), caller: server)
            throw error
        }
    }

    /// `user` no longer follows `target`: both rows go (those an import brought, whatever their
    /// ids, too). Following nobody is no error, as LeanCloud answers it.
    ///
    /// - Throws: 206/119 (see `SocialRules.actingUser`), 104 for a malformed id.
    public func unfollow(user: String, target: String, caller: Caller) async throws {
        let user = try SocialRules.actingUser(caller, named: try SocialRules.userId(user), doing: "Unfollowing")
        let target = try SocialRules.userId(target)
        let server = SocialRules.server(for: caller)
        let followees = try await rows(SocialRules.followeeClass, user: user, key: "followee", other: target, server)
        if !followees.isEmpty { _ = try await data.deleteAll(SocialRules.followeeClass, ids: followees, caller: server) }
        let followers = try await rows(SocialRules.followerClass, user: target, key: "follower", other: user, server)
        if !followers.isEmpty { _ = try await data.deleteAll(SocialRules.followerClass, ids: followers, caller: server) }
    }

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
