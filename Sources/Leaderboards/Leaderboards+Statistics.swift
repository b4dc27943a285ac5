public import DataAPI
import Foundation
public import JSON

/// Members' statistics: written by the board's strategy in one conditional statement each (an
/// increment for `sum`, an update only if better for `better`), so concurrent writes never lose
/// one; read for one member or many.
extension Leaderboards {
    /// The record id of a member's statistic in one version of one board's life.
    static func statisticId(_ board: Leaderboard, version: Int, member: String) -> String {
        recordId("s", board.generation, String(version), member)
    }

    /// The member a path names: `self` is the signed-in user (users only).
    static func member(_ id: String, kind: MemberKind, caller: Caller) throws(LeaderboardError) -> String {
        if kind == .user, id == "self" {
            guard let userId = caller.userId else {
                throw LeaderboardError(.unauthorized, code: 401, "users/self needs a signed-in user's session token.")
            }
            return userId
        }
        try LeaderboardInput.checkMember(id, kind: kind)
        return id
    }

    /// Refuses a write of `member`'s statistics by a caller who may not: the master key may
    /// write any; a user his own (unless only the master key writes statistics); nobody else.
    func checkWriter(_ kind: MemberKind, _ member: String, overwrite: Bool, caller: Caller) throws(LeaderboardError) {
        if caller.isMaster { return }
        guard kind == .user, caller.userId != nil else { throw .masterKeyRequired }
        guard caller.userId == member else {
            throw LeaderboardError(.forbidden, code: 403, "A user may change his own statistics only.")
        }
        if masterKeyOnlyStatistics {
            throw LeaderboardError(.forbidden, code: 403, "Only the master key may change statistics in this app.")
        }
        // `overwrite` ignores the board's strategy: LeanCloud's tool against cheating, the master key's.
        if overwrite { throw .masterKeyRequired }
    }

    /// Writes a member's statistics (`[{"statisticName", "statisticValue"}, ...]`) by each
    /// board's strategy, or as `last` with `overwrite`; answers the values now kept.
    public func updateStatistics(
        _ kind: MemberKind, id: String, _ body: JSONValue?, overwrite: Bool, caller: Caller
    ) async throws(LeaderboardError) -> [JSONValue] {
        let member = try Self.member(id, kind: kind, caller: caller)
        try checkWriter(kind, member, overwrite: overwrite, caller: caller)
        guard let items = body?.arrayValue, (1...LeaderboardInput.maxStatisticsPerUpdate).contains(items.count) else {
            throw .badRequest(
                "The body must be an array of 1 to \(LeaderboardInput.maxStatisticsPerUpdate) {\"statisticName\", \"statisticValue\"}.")
        }
        var values: [(name: String, value: Double)] = []
        for item in items {
            guard let name = item["statisticName"]?.stringValue else { throw .badRequest("Each statistic needs a statisticName.") }
            try LeaderboardInput.checkName(name)
            guard !values.contains(where: { $0.name == name }) else { throw .badRequest("\(name) is named twice.") }
            values.append((name, try LeaderboardInput.value(item["statisticValue"], of: name)))
        }
        let store = store(caller)
        // Every board is checked before anything is written: a bad name writes nothing.
        var boards: [Leaderboard] = []
        for (name, _) in values {
            let board = try await current(name, store)
            guard board.memberKind == kind else {
                throw .badRequest("Leaderboard '\(name)' ranks \(board.memberType), not \(kind.key)s.")
            }
            boards.append(board)
        }
        try await checkMemberExists(member, in: Set(boards.map(\.memberType)), kind: kind, store)
        let writes = zip(boards, values).map { board, item in
            (board: board, value: item.value, strategy: overwrite ? UpdateStrategy.last : board.updateStrategy)
        }
        // Sums first, all or none, each within ±2^53: a sum refused writes nothing of the request.
        var kept = try await addSums(writes.filter { $0.strategy == .sum }.map { ($0.board, $0.value) }, of: member, store)
        for write in writes where write.strategy != .sum {
            kept[write.board.statisticName] = try await self.write(write.value, of: member, to: write.board, strategy: write.strategy, store)
        }
        if kind == .user {
            // A user deleted while this request wrote: the delete's clean-up may have looked
            // before these records existed, so they go now, and the write was to no user.
            do {
                try await checkMemberExists(member, in: ["_User"], kind: kind, store)
            } catch where error.code == 211 {
                await removeStatistics(ofUser: member, environment: caller.environment)
                throw error
            }
        }
        return writes.map { write in
            [
                "statisticName": .string(write.board.statisticName), "version": .int(Int64(write.board.version)),
                "statisticValue": LeaderboardInput.json(kept[write.board.statisticName] ?? write.value),
            ]
        }
    }

    /// Refuses a user or object that doesn't exist (a statistic for nobody would rank).
    private func checkMemberExists(_ member: String, in classes: Set<String>, kind: MemberKind, _ store: RecordStore) async throws(
        LeaderboardError
    ) {
        guard kind != .entity else { return }
        for className in classes {
            let found: StoredObject?
            do {
                found = try await data.fetch(className, id: member, caller: store.caller)
            } catch let error as DataAPIError where error.code == .objectNotFound {
                found = nil
            } catch {
                throw .storage(error, "member lookup", logger: logger)
            }
            guard found != nil else {
                throw kind == .user
                    ? LeaderboardError(.notFound, code: 211, "Could not find user.")
                    : LeaderboardError(.notFound, code: 101, "Object not found.")
            }
        }
    }

    /// Applies one value by `strategy` and answers the value kept. Each path is one statement
    /// the database makes atomic; a record another request created first is written again.
    private func write(
        _ value: Double, of member: String, to board: Leaderboard, strategy: UpdateStrategy, _ store: RecordStore
    ) async throws(LeaderboardError) -> Double {
        let id = Self.statisticId(board, version: board.version, member: member)
        let reached = JSONValue.int(now().leaderboardMilliseconds)
        for _ in 0..<8 {
            switch strategy {
            case .last:
                if try await store.update(RecordStore.statistics, id: id, ["value": .double(value), "reachedAtMs": reached]) != nil {
                    return value
                }
            case .sum:
                return try await add(value, of: member, to: board, store).kept
            case .better:
                let better: JSONValue = ["value": [board.order == .descending ? "$lt" : "$gt": .double(value)]]
                if try await store.update(RecordStore.statistics, id: id, ["value": .double(value), "reachedAtMs": reached], if: better)
                    != nil
                {
                    return value
                }
                // Not better, or no record when the update looked: one created since is written again.
                if let kept = try await store.find(RecordStore.statistics, ["objectId": .string(id)], limit: 1).first {
                    let keptValue = kept.fields["value"]?.doubleValue ?? value
                    if board.ranksBefore(value, keptValue) { continue }
                    return keptValue
                }
            }
            let fields = Self.statisticFields(board, member: member, value: value, reached: reached)
            if try await store.create(RecordStore.statistics, fields, objectId: id) != nil { return value }
        }
        throw .storageFailed
    }

    /// A member's statistics in the current versions of the named boards (all its boards when
    /// `names` is nil; a name with no board is left out), for anyone with the app key.
    public func statistics(_ kind: MemberKind, id: String, names: [String]?, caller: Caller) async throws(LeaderboardError) -> [JSONValue] {
        let member = try Self.member(id, kind: kind, caller: caller)
        let store = store(caller)
        var found: [JSONValue] = []
        if let names {
            for name in names {
                guard let board = try await currentIfAny(name, store), board.memberKind == kind else { continue }
                let id = Self.statisticId(board, version: board.version, member: member)
                for record in try await store.find(RecordStore.statistics, ["objectId": .string(id)], limit: 1) {
                    found.append(Self.statisticJSON(record, memberType: board.memberType))
                }
            }
            return found
        }
        // Each board's current and last versions keep records: at most two per board.
        let records = try await store.find(
            RecordStore.statistics, ["member": .string(member), "memberKind": .string(kind.rawValue)],
            order: [SortKey(key: "statisticName", descending: false)], limit: 1000)
        var boards: [String: Leaderboard] = [:]
        for record in records {
            guard let name = record.fields["statisticName"]?.stringValue else { continue }
            if boards[name] == nil, let board = try await currentIfAny(name, store) { boards[name] = board }
            guard let board = boards[name], record.fields["generation"]?.stringValue == board.generation,
                record.fields["version"]?.intValue == Int64(board.version)
            else { continue }
            found.append(Self.statisticJSON(record, memberType: board.memberType))
        }
        return found
    }

    /// The current board of a name; nil when there is none.
    func currentIfAny(_ name: String, _ store: RecordStore) async throws(LeaderboardError) -> Leaderboard? {
        do {
            return try await current(name, store)
        } catch where error.kind == .notFound {
            return nil
        }
    }

    /// Several members' statistics on one board's current version (`{"ids": [...]}`, at most 200).
    public func statistics(
        _ kind: MemberKind, of name: String, ids body: JSONValue?, caller: Caller
    ) async throws(LeaderboardError) -> [JSONValue] {
        try LeaderboardInput.checkName(name)
        guard let ids = body?["ids"]?.arrayValue, ids.count <= LeaderboardInput.maxBatchIds else {
            throw .badRequest("The body must be {\"ids\": [...]} with at most \(LeaderboardInput.maxBatchIds) ids.")
        }
        var members: [String] = []
        for id in ids {
            guard let text = id.stringValue else { throw .badRequest("ids must be strings.") }
            try LeaderboardInput.checkMember(text, kind: kind)
            members.append(text)
        }
        let store = store(caller)
        let board = try await current(name, store)
        guard board.memberKind == kind, !members.isEmpty else { return [] }
        var condition = Self.sameVersion(board).objectValue ?? [:]
        condition["member"] = ["$in": .array(members.map(JSONValue.string))]
        let records = try await store.find(RecordStore.statistics, .object(condition), limit: members.count)
        return records.map { Self.statisticJSON($0, memberType: board.memberType) }
    }

    /// Deletes a member's statistics in the current versions of the named boards (the master
    /// key, or a user his own).
    public func deleteStatistics(_ kind: MemberKind, id: String, names: [String]?, caller: Caller) async throws(LeaderboardError) {
        let member = try Self.member(id, kind: kind, caller: caller)
        try checkWriter(kind, member, overwrite: false, caller: caller)
        guard let names, !names.isEmpty else { throw .badRequest("statistics must name the statistics to delete.") }
        let store = store(caller)
        for name in names {
            let board = try await current(name, store)
            try await store.delete(RecordStore.statistics, id: Self.statisticId(board, version: board.version, member: member))
        }
    }

    /// A statistic as LeanCloud answers it, with its member as a pointer (users, objects) or a
    /// string (entities).
    static func statisticJSON(_ record: StoredObject, memberType: String) -> JSONValue {
        let fields = record.fields
        let member = fields["member"]?.stringValue ?? ""
        let kind = MemberKind(memberType: memberType)
        return [
            "statisticName": fields["statisticName"] ?? .null,
            "statisticValue": LeaderboardInput.json(fields["value"]?.doubleValue ?? 0),
            "version": fields["version"] ?? .null,
            kind.key: kind == .entity ? .string(member) : pointer(memberType, member),
        ]
    }

    /// A pointer to a member.
    static func pointer(_ className: String, _ id: String) -> JSONValue {
        ["__type": "Pointer", "className": .string(className), "objectId": .string(id)]
    }
}
