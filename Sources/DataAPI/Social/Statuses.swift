public import JSON

/// LeanCloud's statuses: a user sends a status (`POST /statuses`) to the users a query finds
/// (his followers, one user, or any query), into an inbox type (`default`, `private`, or the
/// app's own); each recipient reads his inbox (`GET /subscribe/statuses`), counts what he hasn't
/// read (`/subscribe/statuses/count`), resets that count, removes one message; the sender
/// deletes a status, which leaves every inbox.
///
/// Who acts: a signed-in user sends as himself and reads his own inboxes only; the master key
/// acts for any user it names. A status in the `default` inbox (the timeline) is readable by
/// everyone, as LeanCloud's are (`statusQuery` lists a user's); one of any other type is
/// readable by its sender and its recipients only, or by everyone when it reaches more than
/// `maxACLRecipients` (a broadcast, which only a query of many users, so the master key or an
/// app that opened `_User` queries, sends).
public struct Statuses: Sendable {
    /// Where statuses and inboxes are kept.
    public let data: DataService
    /// The most users one status reaches in one request (1 when the query finds more, before
    /// anything is written): a request's work is bounded by it.
    public var maxRecipients = 1000
    /// Whether any client reads, counts and marks read any user's inbox by naming its `owner`,
    /// as LeanCloud's own server let it (the JS SDK's suite reads another user's inbox with its
    /// own session). Off by default: a user reads his own inboxes only. Removing a message stays
    /// the owner's either way.
    public var openInboxes = false
    /// The most recipients a non-timeline status names in its ACL; past it the status is public.
    public static let maxACLRecipients = 100
    /// The most fields a status's data may have.
    public static let maxDataFields = 64
    /// Fields the host sets on a status; its data may not name them.
    static let statusFields: Set<String> = ["inboxType", "messageId", "ACL"]

    /// Creates the statuses over a data service.
    public init(data: DataService) {
        self.data = data
    }

    /// Sends a status: `body` is LeanCloud's `{"data": {...}, "inboxType": ..., "query": {...}}`.
    /// Answers the stored status.
    ///
    /// - Throws: 206/119 (`SocialRules.actingUser`; `data.source` names the sender), 1 for a body
    ///   without a query or with too many recipients, 105 for a data field the host owns.
    public func send(_ body: [String: JSONValue], caller: Caller) async throws -> StoredObject {
        guard case .object(var fields)? = body["data"] ?? .object([:]) else {
            throw DataAPIError(.badParameters, "A status's data is a JSON object.")
        }
        // The JS SDK names the sender in data.source, the Python SDK beside data too.
        let source = fields["source"] ?? body["source"]
        let named = try source.map { (value) throws(DataAPIError) in try SocialRules.userId(in: value) }
        let sender = try SocialRules.actingUser(caller, named: named, doing: "Sending a status")
        let inboxType = try SocialRules.inboxType(body["inboxType"])
        guard case .object(let query)? = body["query"] else {
            throw DataAPIError(.badParameters, "A status needs a query naming its recipients.")
        }
        guard fields.count <= Self.maxDataFields else {
            throw DataAPIError(.invalidKeyName, "A status's data has at most \(Self.maxDataFields) fields.")
        }
        for key in fields.keys where Self.statusFields.contains(key) || !Names.isValidFieldName(key) {
            throw DataAPIError(.invalidKeyName, "A status's data can't set '\(key)'.")
        }
        let recipients = try await StatusRecipients(data: data)
            .resolve(query, sender: sender, caller: caller, limit: maxRecipients)
        fields["source"] = SocialRules.pointer(sender)
        fields["inboxType"] = .string(inboxType)
        fields["ACL"] = Self.acl(sender: sender, recipients: recipients, inboxType: inboxType)
        let server = SocialRules.server(for: caller)
        let store = InboxStore(data: data, server: server)
        let messageId = try await store.nextMessageId()
        let status = try await data.create(SocialRules.statusClass, body: fields, caller: server)
        do {
            try await store.deliver(statusId: status.objectId, messageId: messageId, inboxType: inboxType, to: recipients)
        } catch {
            // A status is delivered to all its recipients or not sent.
            try? await store.removeEverywhere(statusId: status.objectId)
            try? await data.delete(SocialRules.statusClass, id: status.objectId, caller: server)
            throw error
        }
        return status
    }

    /// Deletes a status its sender sent (the master key: any), and takes it out of every inbox.
    ///
    /// - Throws: 104 for a malformed id, 101 when there is no such status, 206/119 for a caller
    ///   other than its sender.
    public func delete(id: String, caller: Caller) async throws {
        let id = try SocialRules.objectId(id, of: "status")
        let server = SocialRules.server(for: caller)
        guard let status = try await data.fetch(SocialRules.statusClass, id: id, caller: server) else {
            throw DataAPIError(.objectNotFound, "Could not find the status.")
        }
        _ = try SocialRules.actingUser(caller, named: SocialRules.pointedUser(status.fields["source"]), doing: "Deleting a status")
        try await InboxStore(data: data, server: server).removeEverywhere(statusId: id)
        try await data.delete(SocialRules.statusClass, id: id, caller: server)
    }

    /// One page of an inbox, newest first: LeanCloud's `owner`, `inboxType`, `sinceId`, `maxId`
    /// and `limit`, with `where`, `include` and `keys` applied to the statuses as the caller reads
    /// them. Each status carries its `messageId`. Reading a page marks the inbox read up to it.
    ///
    /// - Throws: 206/119 for an inbox not the caller's own, 1 for malformed ids or limit.
    public func inbox(_ parameters: [String: JSONValue], caller: Caller) async throws -> [JSONValue] {
        let (owner, inboxType) = try inbox(parameters, caller: caller, doing: "Reading an inbox", reading: true)
        let limit = try Self.number(parameters["limit"], name: "limit") ?? 100
        guard (0...Int64(ObjectQuery.maxLimit)).contains(limit) else {
            throw DataAPIError(.badParameters, "limit is from 0 to \(ObjectQuery.maxLimit).")
        }
        let store = InboxStore(data: data, server: SocialRules.server(for: caller))
        let entries = try await store.entries(
            owner: owner, inboxType: inboxType, sinceId: try Self.number(parameters["sinceId"], name: "sinceId") ?? 0,
            maxId: try Self.number(parameters["maxId"], name: "maxId") ?? 0, limit: Int(limit))
        guard let newest = entries.first else { return [] }
        var query: [String: JSONValue] = [:]
        for key in ["include", "keys"] { query[key] = parameters[key] }
        let mine: JSONValue = ["objectId": ["$in": .array(entries.map { .string($0.statusId) })]]
        switch parameters["where"] {
        case nil, .null?, .string("")?: query["where"] = mine
        case .string(let text)?: query["where"] = ["$and": [try JSONValue(parsingWhere: text), mine]]
        case let condition?: query["where"] = ["$and": [condition, mine]]
        }
        query["limit"] = .int(Int64(entries.count))
        let found = try await data.find(SocialRules.statusClass, query: query, caller: caller)
        var byId: [String: JSONValue] = [:]
        for object in found.objects {
            let json = object.restJSON(includeACL: false)
            var selected = found.query.keys?.apply(to: json) ?? json
            selected["objectId"] = .string(object.objectId)
            byId[object.objectId] = .object(selected)
        }
        try await store.markRead(owner: owner, inboxType: inboxType, upTo: newest.messageId)
        return entries.compactMap { entry in
            guard case .object(var status)? = byId[entry.statusId] else { return nil }
            status["messageId"] = .int(entry.messageId)
            return .object(status)
        }
    }

    /// How many messages an inbox holds and how many are unread: `{"total", "unread"}`.
    ///
    /// - Throws: 206/119 for an inbox not the caller's own.
    public func count(_ parameters: [String: JSONValue], caller: Caller) async throws -> (total: Int, unread: Int) {
        let (owner, inboxType) = try inbox(parameters, caller: caller, doing: "Counting an inbox", reading: true)
        return try await InboxStore(data: data, server: SocialRules.server(for: caller)).counts(owner: owner, inboxType: inboxType)
    }

    /// Marks every message of an inbox read.
    ///
    /// - Throws: 206/119 for an inbox not the caller's own.
    public func resetUnreadCount(_ parameters: [String: JSONValue], caller: Caller) async throws {
        let (owner, inboxType) = try inbox(parameters, caller: caller, doing: "Resetting an inbox's count", reading: true)
        try await InboxStore(data: data, server: SocialRules.server(for: caller)).markAllRead(owner: owner, inboxType: inboxType)
    }

    /// Removes message `messageId` from an inbox (the status stays in the others).
    ///
    /// - Throws: 206/119 for an inbox not the caller's own, 1 without a message id.
    public func removeFromInbox(_ parameters: [String: JSONValue], caller: Caller) async throws {
        let (owner, inboxType) = try inbox(parameters, caller: caller, doing: "Changing an inbox", reading: false)
        guard let messageId = try Self.number(parameters["messageId"], name: "messageId"), messageId > 0 else {
            throw DataAPIError(.badParameters, "messageId names the message to remove.")
        }
        try await InboxStore(data: data, server: SocialRules.server(for: caller))
            .remove(owner: owner, inboxType: inboxType, messageId: messageId)
    }

    /// The inbox a call names (`owner`, else the caller's own user; `inboxType`), once the caller
    /// may act for its owner (or, `reading` one with `openInboxes`, names it).
    private func inbox(
        _ parameters: [String: JSONValue], caller: Caller, doing action: String, reading: Bool
    ) throws(DataAPIError) -> (owner: String, inboxType: String) {
        let named = try parameters["owner"].flatMap { (value) throws(DataAPIError) -> String? in
            value == .null ? nil : try SocialRules.userId(in: value)
        }
        let inboxType = try SocialRules.inboxType(parameters["inboxType"])
        if reading, openInboxes, let named { return (named, inboxType) }
        return (try SocialRules.actingUser(caller, named: named, doing: action), inboxType)
    }

    /// A count parameter (a number or its digits), nil when absent.
    private static func number(_ value: JSONValue?, name: String) throws(DataAPIError) -> Int64? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            guard let number = Int64(text), number >= 0 else { throw DataAPIError(.badParameters, "\(name) is a whole number.") }
            return number
        case let value?:
            guard let number = value.intValue, number >= 0 else { throw DataAPIError(.badParameters, "\(name) is a whole number.") }
            return number
        }
    }

    /// Who reads a status: everyone on the timeline; else its sender and its recipients, or
    /// everyone past `maxACLRecipients`.
    private static func acl(sender: String, recipients: [String], inboxType: String) -> JSONValue {
        var acl: [String: JSONValue] = [sender: ["read": true, "write": true]]
        if inboxType == "default" || recipients.count > maxACLRecipients {
            acl["*"] = ["read": true]
        } else {
            for recipient in recipients where recipient != sender { acl[recipient] = ["read": true] }
        }
        return .object(acl)
    }
}
