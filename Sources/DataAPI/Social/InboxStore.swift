import JSON

/// The inboxes statuses are delivered to, kept in the host's own classes through `DataService`
/// (so both engines, and several hosts on one PostgreSQL, hold the same): one `_StatusInbox`
/// row per status per owner and inbox type, numbered by one message sequence, and one
/// `_StatusInboxMark` row per inbox recording the last message its owner read.
///
/// Message ids come from one counter row incremented atomically (each engine's update reads the
/// row it changes under its write lock), so they grow with every status; a status delivered a
/// little after a later one is numbered before it, which a reader paging with `sinceId` at that
/// moment can step over (LeanCloud's asynchronous delivery had the same window).
struct InboxStore: Sendable {
    let data: DataService
    /// The server acting for the request (its environment), hooks off.
    let server: Caller

    /// The id of the counter row in `_StatusInboxMark`.
    static let sequenceId = "statusMessageSequence"
    /// How many deliveries run at once: the engines group concurrent creates into one transaction.
    static let deliveryWidth = 16

    /// The next message id.
    func nextMessageId() async throws -> Int64 {
        for _ in 0..<3 {
            do {
                let written = try await data.update(
                    SocialRules.inboxMarkClass, id: Self.sequenceId, body: ["sequence": ["__op": "Increment", "amount": 1]],
                    caller: server)
                if let next = written.object.fields["sequence"]?.intValue { return next }
            } catch let error as DataAPIError where error.code == .objectNotFound {
                do {
                    _ = try await data.create(
                        SocialRules.inboxMarkClass, body: ["sequence": 1, "ACL": [:]], objectId: Self.sequenceId, caller: server)
                    return 1
                } catch let error as DataAPIError where error.code == .duplicateValue {
                    continue  // Another request created it first: increment it.
                }
            }
        }
        throw DataAPIError(.storageFailure, "The status message sequence could not be advanced.")
    }

    /// Puts status `statusId` as message `messageId` into the `inboxType` inbox of each owner,
    /// `deliveryWidth` at a time.
    func deliver(statusId: String, messageId: Int64, inboxType: String, to owners: [String]) async throws {
        var start = 0
        while start < owners.count {
            let chunk = owners[start..<min(start + Self.deliveryWidth, owners.count)]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for owner in chunk {
                    group.addTask {
                        let entry: [String: JSONValue] = [
                            "owner": .string(owner), "inboxType": .string(inboxType), "messageId": .int(messageId),
                            "status": .string(statusId), "ACL": [:],
                        ]
                        _ = try await data.create(SocialRules.inboxClass, body: entry, caller: server)
                    }
                }
                try await group.waitForAll()
            }
            start += chunk.count
        }
    }

    /// The newest `limit` messages of an inbox after `sinceId` and up to `maxId` (0: no bound),
    /// newest first, as (message id, status id).
    func entries(owner: String, inboxType: String, sinceId: Int64, maxId: Int64, limit: Int) async throws -> [(
        messageId: Int64, statusId: String
    )] {
        var range: [String: JSONValue] = [:]
        if sinceId > 0 { range["$gt"] = .int(sinceId) }
        if maxId > 0 { range["$lte"] = .int(maxId) }
        var condition = Self.inbox(owner, inboxType)
        if !range.isEmpty { condition["messageId"] = .object(range) }
        let query = ObjectQuery(
            className: SocialRules.inboxClass, predicate: try QueryPredicate(where: .object(condition)),
            order: [SortKey(key: "messageId", descending: true)], limit: limit)
        return try await data.find(query, caller: server).objects.compactMap { entry in
            guard let id = entry.fields["messageId"]?.intValue, let status = entry.fields["status"]?.stringValue else { return nil }
            return (id, status)
        }
    }

    /// How many messages an inbox holds, and how many of them came after the last one read.
    func counts(owner: String, inboxType: String) async throws -> (total: Int, unread: Int) {
        let total = try await count(Self.inbox(owner, inboxType))
        var newer = Self.inbox(owner, inboxType)
        newer["messageId"] = ["$gt": .int(try await readUpTo(owner: owner, inboxType: inboxType))]
        return (total, try await count(newer))
    }

    /// Records that the owner read the inbox up to `messageId` (never moving the mark back).
    func markRead(owner: String, inboxType: String, upTo messageId: Int64) async throws {
        let id = SocialRules.derivedId("inbox-mark", owner, inboxType)
        for _ in 0..<3 {
            do {
                _ = try await data.update(
                    SocialRules.inboxMarkClass, id: id, body: ["readUpTo": .int(messageId)],
                    condition: try QueryPredicate(where: ["readUpTo": ["$lt": .int(messageId)]]), caller: server)
                return
            } catch let error as DataAPIError where error.code == .conditionNotMatched {
                return  // Read that far already.
            } catch let error as DataAPIError where error.code == .objectNotFound {
                do {
                    let mark: [String: JSONValue] = [
                        "owner": .string(owner), "inboxType": .string(inboxType), "readUpTo": .int(messageId), "ACL": [:],
                    ]
                    _ = try await data.create(SocialRules.inboxMarkClass, body: mark, objectId: id, caller: server)
                    return
                } catch let error as DataAPIError where error.code == .duplicateValue {
                    continue
                }
            }
        }
    }

    /// Marks everything in an inbox read.
    func markAllRead(owner: String, inboxType: String) async throws {
        guard let newest = try await entries(owner: owner, inboxType: inboxType, sinceId: 0, maxId: 0, limit: 1).first else {
            return
        }
        try await markRead(owner: owner, inboxType: inboxType, upTo: newest.messageId)
    }

    /// Removes status `statusId` from every inbox it was delivered to.
    func removeEverywhere(statusId: String) async throws {
        try await remove(["status": .string(statusId)])
    }

    /// Removes message `messageId` from one inbox.
    func remove(owner: String, inboxType: String, messageId: Int64) async throws {
        var condition = Self.inbox(owner, inboxType)
        condition["messageId"] = .int(messageId)
        try await remove(condition)
    }

    private func remove(_ condition: [String: JSONValue]) async throws {
        let predicate = try QueryPredicate(where: .object(condition))
        // A status reaches a bounded number of inboxes (`Statuses.maxRecipients`): a few pages.
        for _ in 0..<64 {
            let query = ObjectQuery(className: SocialRules.inboxClass, predicate: predicate, limit: DataService.maxDeleteIds)
            let ids = try await data.find(query, caller: server).objects.map(\.objectId)
            guard !ids.isEmpty else { return }
            _ = try await data.deleteAll(SocialRules.inboxClass, ids: ids, caller: server)
        }
    }

    private func readUpTo(owner: String, inboxType: String) async throws -> Int64 {
        let id = SocialRules.derivedId("inbox-mark", owner, inboxType)
        return try await data.fetch(SocialRules.inboxMarkClass, id: id, caller: server)?.fields["readUpTo"]?.intValue ?? 0
    }

    private func count(_ condition: [String: JSONValue]) async throws -> Int {
        let query = ObjectQuery(className: SocialRules.inboxClass, predicate: try QueryPredicate(where: .object(condition)), limit: 0)
        return try await data.find(query, withCount: true, caller: server).count ?? 0
    }

    private static func inbox(_ owner: String, _ inboxType: String) -> [String: JSONValue] {
        ["owner": .string(owner), "inboxType": .string(inboxType)]
    }
}
