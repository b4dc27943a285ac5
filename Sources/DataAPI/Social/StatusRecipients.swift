import JSON

/// Who a status goes to: the users its `query` finds, read as the sender may read them (the one
/// authorization step decides, as for any query), at most `limit` of them.
///
/// The query forms the SDKs send:
/// - `{"className": "_Follower", "keys": "follower", "where": {"user": <sender>}}`: the sender's
///   followers. A client names only its own followers (119 otherwise): a status goes out as its
///   sender, to the sender's audience.
/// - `_Followee` the same way: a client's `where` pins `user` (its followees) or `followee` (its
///   followers) to itself.
/// - `{"className": "_User", "where": {"objectId": <id>}}`: one user (a private message); the
///   user must exist (211), whoever may list users.
/// - `{"className": "_User", "where": ...}`: the users the sender may find (a client finds its
///   own user only, unless the app opened `_User` queries; the master key finds all).
/// - any other class with `keys` naming one `_User` Pointer field: the users that field points at
///   in the rows the sender may find.
///
/// Only users that exist are recipients: ids the rows point at that are no user's are dropped
/// (211 when none is left).
struct StatusRecipients {
    let data: DataService

    /// The recipients' ids, each once, in the order found.
    ///
    /// - Throws: 1 for a malformed query or one finding more than `limit` users, 119 for a
    ///   client naming another user's followers, 211 for a private message to no user or rows
    ///   naming only ids that are no user's.
    func resolve(_ query: [String: JSONValue], sender: String, caller: Caller, limit: Int) async throws -> [String] {
        guard var className = query["className"]?.stringValue else {
            throw DataAPIError(.badParameters, "A status's query names the className its recipients are found in.")
        }
        // The Python SDK's private status queries `User`.
        if className == "User" { className = "_User" }
        var parameters = query
        parameters["className"] = nil
        parameters["count"] = nil
        // Read in pages by objectId, the client's own order, skip and limit aside.
        parameters["limit"] = .int(Int64(Self.pageSize))
        parameters["order"] = "objectId"
        parameters["skip"] = nil
        let condition = try Self.condition(parameters["where"])
        let field: String?
        switch className {
        case "_User":
            if let only = Self.singleUser(condition) {
                let id = try SocialRules.userId(only)
                guard try await data.fetch("_User", id: id, caller: SocialRules.server(for: caller)) != nil else {
                    throw DataAPIError(.userNotFound, "Could not find user.")
                }
                return [id]
            }
            parameters["keys"] = "objectId"
            field = nil
        case SocialRules.followerClass:
            if !caller.isMaster, SocialRules.pointedUser(condition?["user"]) != sender {
                throw DataAPIError(.operationForbidden, "A status goes to its sender's own followers only.")
            }
            parameters["keys"] = "follower"
            field = "follower"
        case SocialRules.followeeClass:
            // `_Followee` holds the same graph the other way round: `followee = B` lists B's
            // followers. A client reaches only the rows of its own follows, as with `_Follower`.
            if !caller.isMaster, SocialRules.pointedUser(condition?["user"]) != sender,
                SocialRules.pointedUser(condition?["followee"]) != sender
            {
                throw DataAPIError(.operationForbidden, "A status goes to its sender's own followers or followees only.")
            }
            guard let keys = parameters["keys"]?.stringValue, keys == "user" || keys == "followee" else {
                throw DataAPIError(.badParameters, "A status's query on _Followee names in keys user or followee.")
            }
            field = keys
        default:
            guard let keys = parameters["keys"]?.stringValue, Names.isValidFieldName(keys) else {
                throw DataAPIError(.badParameters, "A status's query on \(className) names in keys the one _User Pointer field it reaches.")
            }
            field = keys
        }
        var seen = Set<String>()
        var recipients: [String] = []
        var rows = 0
        var last: String?
        while true {
            var page = parameters
            if let last {
                let after: JSONValue = ["objectId": ["$gt": .string(last)]]
                page["where"] = condition.map { ["$and": [$0, after]] } ?? after
            }
            let found = try await data.find(className, query: page, caller: caller).objects
            rows += found.count
            // Refused before anything is written: the rows read, not the users, bound the work.
            guard rows <= limit else {
                throw DataAPIError(
                    .badParameters, "A status reaches at most \(limit) users in one request; this query finds more. Narrow it, or send in parts.")
            }
            for object in found {
                let id = field.map { SocialRules.pointedUser(object.fields[$0]) } ?? object.objectId
                if let id, seen.insert(id).inserted { recipients.append(id) }
            }
            guard found.count == Self.pageSize, let next = found.last?.objectId else {
                // `_User` rows are users; a pointer field may name ids that are none (a user deleted
                // since, a row written with the master key): only users get an inbox row.
                return field == nil ? recipients : try await existingUsers(recipients, caller: caller)
            }
            last = next
        }
    }

    /// The users among `ids` (at most the request's bound) that exist, in their order, read by
    /// id in pages of `pageSize`.
    ///
    /// - Throws: 211 when the rows named users and none of them is one (nothing is sent); a
    ///   query whose rows name nobody sends to nobody, as a user with no followers does.
    private func existingUsers(_ ids: [String], caller: Caller) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        let server = SocialRules.server(for: caller)
        var existing = Set<String>()
        for start in stride(from: 0, to: ids.count, by: Self.pageSize) {
            let page = ids[start..<min(start + Self.pageSize, ids.count)]
            let named = try QueryPredicate(where: ["objectId": ["$in": .array(page.map(JSONValue.string))]])
            let query = ObjectQuery(className: "_User", predicate: named, limit: page.count)
            existing.formUnion(try await data.find(query, caller: server).objects.map(\.objectId))
        }
        let users = ids.filter(existing.contains)
        guard !users.isEmpty else { throw DataAPIError(.userNotFound, "Could not find user.") }
        return users
    }

    /// How many rows one read of the recipients' query takes.
    static let pageSize = 200

    /// The query's `where` as JSON (text parsed), nil when it has none.
    private static func condition(_ value: JSONValue?) throws(DataAPIError) -> JSONValue? {
        switch value {
        case nil, .null?, .string("")?: return nil
        case .string(let text)?: return try JSONValue(parsingWhere: text)
        case let condition?: return condition
        }
    }

    /// The id a `where` names when it is exactly `{"objectId": id}`.
    private static func singleUser(_ condition: JSONValue?) -> String? {
        guard let members = condition?.objectValue, members.count == 1 else { return nil }
        return members["objectId"]?.stringValue
    }
}
