public import DataAPI
import Foundation
public import JSON

/// Rankings, computed by the database: a page is the board's records in rank order, and a
/// member's rank is the count of records ranked before it. Ties are ranked by who reached the
/// value first, then by member id, so every record has one rank and pages never overlap.
extension Leaderboards {
    /// One page of a board's rankings, with the board's member count when asked.
    ///
    /// - Parameter kind: the member kind the path named (`/leaderboards/user/...`); nil for the
    ///   JS SDK's paths, which name none.
    public func rankings(
        _ name: String, kind: MemberKind? = nil, options: RankOptions, caller: Caller
    ) async throws(LeaderboardError) -> (results: [JSONValue], count: Int?) {
        let (board, version, store) = try await ranked(name, kind: kind, options: options, caller: caller)
        let base = Self.versionCondition(board, version)
        let records = try await store.find(
            RecordStore.statistics, base, order: Self.rankOrder(board), skip: options.skip, limit: options.limit)
        let count = options.count ? try await store.count(RecordStore.statistics, base) : nil
        return (try await answer(records, firstRank: options.skip, board: board, options: options, caller: caller, store), count)
    }

    /// The rankings around a member (`self`: the signed-in user): `limit` of them, the member's
    /// in the middle where the board allows; none when the member has no statistic.
    public func rankings(
        _ name: String, kind: MemberKind? = nil, around id: String, options: RankOptions, caller: Caller
    ) async throws(LeaderboardError) -> (results: [JSONValue], count: Int?) {
        let (board, version, store) = try await ranked(name, kind: kind, options: options, caller: caller)
        let member = try Self.member(id, kind: board.memberKind, caller: caller)
        let base = Self.versionCondition(board, version)
        let total = try await store.count(RecordStore.statistics, base)
        let recordId = Self.statisticId(board, version: version, member: member)
        guard let record = try await store.find(RecordStore.statistics, ["objectId": .string(recordId)], limit: 1).first else {
            return ([], options.count ? total : nil)
        }
        let rank = try await store.count(RecordStore.statistics, Self.rankedBefore(record, board: board, base: base))
        let start = max(0, min(rank - options.limit / 2, total - options.limit))
        let records = try await store.find(
            RecordStore.statistics, base, order: Self.rankOrder(board), skip: start, limit: options.limit)
        let results = try await answer(records, firstRank: start, board: board, options: options, caller: caller, store)
        return (results, options.count ? total : nil)
    }

    /// The board and version a rankings request reads: the current version, or the one before
    /// it (kept until the next version change, as LeanCloud keeps it).
    private func ranked(
        _ name: String, kind: MemberKind?, options: RankOptions, caller: Caller
    ) async throws(LeaderboardError) -> (Leaderboard, Int, RecordStore) {
        try LeaderboardInput.checkName(name)
        let store = store(caller)
        let board = try await current(name, store)
        if let kind, kind != board.memberKind {
            throw .badRequest("Leaderboard '\(name)' ranks \(board.memberType), not \(kind.key)s.")
        }
        let version = options.version ?? board.version
        guard version == board.version || (version == board.version - 1 && version >= 0) else {
            throw LeaderboardError(.notFound, code: 404, "Version \(version) of leaderboard '\(name)' is not kept: only \(board.version) and the one before it are.")
        }
        return (board, version, store)
    }

    /// The records of one version of a board.
    static func versionCondition(_ board: Leaderboard, _ version: Int) -> JSONValue {
        ["generation": .string(board.generation), "version": .int(Int64(version))]
    }

    /// Rank order: the board's order of values, then who reached the value first, then member id.
    static func rankOrder(_ board: Leaderboard) -> [SortKey] {
        [
            SortKey(key: "value", descending: board.order == .descending), SortKey(key: "reachedAtMs", descending: false),
            SortKey(key: "member", descending: false),
        ]
    }

    /// The records ranked before `record`, as the rank order puts them.
    static func rankedBefore(_ record: StoredObject, board: Leaderboard, base: JSONValue) -> JSONValue {
        let value = record.fields["value"] ?? .double(0)
        let reached = record.fields["reachedAtMs"] ?? .int(0)
        let member = record.fields["member"] ?? ""
        var condition = base.objectValue ?? [:]
        condition["$or"] = [
            ["value": [board.order == .descending ? "$gt" : "$lt": value]],
            ["value": value, "reachedAtMs": ["$lt": reached]],
            ["value": value, "reachedAtMs": reached, "member": ["$lt": member]],
        ]
        return .object(condition)
    }

    /// A page of records as rankings: rank, value, the member (with the fields asked for, read
    /// as the caller may read them) and the other boards' statistics asked for.
    private func answer(
        _ records: [StoredObject], firstRank: Int, board: Leaderboard, options: RankOptions, caller: Caller, _ store: RecordStore
    ) async throws(LeaderboardError) -> [JSONValue] {
        let members = records.compactMap { $0.fields["member"]?.stringValue }
        let included = try await includedStatistics(options.includeStatistics, of: members, kind: board.memberKind, store)
        var results: [JSONValue] = []
        for (index, record) in records.enumerated() {
            let member = record.fields["member"]?.stringValue ?? ""
            var ranking: [String: JSONValue] = [
                "statisticName": .string(board.statisticName), "rank": .int(Int64(firstRank + index)),
                "statisticValue": LeaderboardInput.json(record.fields["value"]?.doubleValue ?? 0),
                board.memberKind.key: try await memberJSON(member, board: board, options: options, caller: caller),
            ]
            if !options.includeStatistics.isEmpty { ranking["statistics"] = .array(included[member] ?? []) }
            results.append(.object(ranking))
        }
        return results
    }

    /// A member as a ranking shows it: an entity's string, else a pointer carrying the selected
    /// fields of the object as the caller may read it (none when it may not, or it is gone).
    private func memberJSON(_ member: String, board: Leaderboard, options: RankOptions, caller: Caller) async throws(
        LeaderboardError
    ) -> JSONValue {
        guard board.memberKind != .entity else { return .string(member) }
        var pointer = Self.pointer(board.memberType, member).objectValue ?? [:]
        guard !options.selectKeys.isEmpty else { return .object(pointer) }
        let object: StoredObject?
        do {
            object = try await data.fetch(board.memberType, id: member, include: options.includeKeys, caller: caller)
        } catch let error as DataAPIError
            where [.objectNotFound, .operationForbidden, .forbiddenByClassPermissions].contains(error.code)
        {
            object = nil  // Gone, or not the caller's to read: the ranking shows the pointer alone.
        } catch let error as DataAPIError where !error.code.isHostFailure {
            throw LeaderboardError(.badRequest, code: error.code.rawValue, error.message)
        } catch {
            throw .storage(error, "member fetch", logger: logger)
        }
        guard let object else { return .object(pointer) }
        pointer["createdAt"] = .string(object.createdAt)
        pointer["updatedAt"] = .string(object.updatedAt)
        for key in options.selectKeys { if let value = object.fields[key] { pointer[key] = value } }
        return .object(pointer)
    }

    /// The current statistics of `members` on other boards, by member.
    private func includedStatistics(
        _ names: [String], of members: [String], kind: MemberKind, _ store: RecordStore
    ) async throws(LeaderboardError) -> [String: [JSONValue]] {
        guard !names.isEmpty else { return [:] }
        // Every named board must exist (LeanCloud refuses the request otherwise), even for an empty page.
        var boards: [Leaderboard] = []
        for name in names { boards.append(try await current(name, store)) }
        guard !members.isEmpty else { return [:] }
        var byMember: [String: [JSONValue]] = [:]
        for board in boards where board.memberKind == kind {
            var condition = Self.sameVersion(board).objectValue ?? [:]
            condition["member"] = ["$in": .array(members.map(JSONValue.string))]
            for record in try await store.find(RecordStore.statistics, .object(condition), limit: members.count) {
                guard let member = record.fields["member"]?.stringValue else { continue }
                byMember[member, default: []].append([
                    "statisticName": .string(board.statisticName), "version": .int(Int64(board.version)),
                    "statisticValue": LeaderboardInput.json(record.fields["value"]?.doubleValue ?? 0),
                ])
            }
        }
        return byMember
    }
}
