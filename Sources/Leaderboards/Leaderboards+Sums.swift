import DataAPI
import Logging
import JSON

/// What one `sum` write of a request added to a record: taken back when a later sum of the same
/// request is refused, so a request's statistics are written all or none.
struct SumAddition: Sendable {
    /// The record added to.
    let id: String
    /// What was added.
    let amount: Double
    /// Whether this write created the record.
    let created: Bool
    /// The sum the record holds after it.
    let kept: Double
}

/// `sum` statistics kept within ±2^53 (`LeaderboardInput.maxValue`): past it a Double, and so a
/// JSON number, no longer holds every integer, and the sum would drift by itself. A write that
/// would take a sum past the bound is refused (400, code 1) and writes nothing.
extension Leaderboards {
    /// Adds the request's sums, all or none: each is checked first, then added by a conditional
    /// increment; when one is refused (a concurrent write took the room the check saw), those
    /// added before it are taken back. Answers the sums kept, by board name.
    func addSums(_ sums: [(board: Leaderboard, amount: Double)], of member: String, _ store: RecordStore) async throws(
        LeaderboardError
    ) -> [String: Double] {
        try await checkSumRoom(sums, of: member, store)
        var kept: [String: Double] = [:]
        var added: [SumAddition] = []
        for sum in sums {
            do {
                let addition = try await add(sum.amount, of: member, to: sum.board, store)
                added.append(addition)
                kept[sum.board.statisticName] = addition.kept
            } catch {
                await takeBack(added, store)
                throw error
            }
        }
        return kept
    }

    /// Refuses, before anything is written, sums the records hold now that `amount`s would take
    /// past the bound: one read for every sum of the request.
    func checkSumRoom(_ sums: [(board: Leaderboard, amount: Double)], of member: String, _ store: RecordStore) async throws(
        LeaderboardError
    ) {
        guard !sums.isEmpty else { return }
        let ids = sums.map { Self.statisticId($0.board, version: $0.board.version, member: member) }
        let records = try await store.find(
            RecordStore.statistics, ["objectId": ["$in": .array(ids.map(JSONValue.string))]], limit: ids.count)
        var kept: [String: Double] = [:]
        for record in records { kept[record.objectId] = record.fields["value"]?.doubleValue ?? 0 }
        for (sum, id) in zip(sums, ids) { try Self.checkRoom(kept[id] ?? 0, sum.amount, sum.board.statisticName) }
    }

    /// Refuses `amount` added to `kept` when the sum passes the bound.
    static func checkRoom(_ kept: Double, _ amount: Double, _ name: String) throws(LeaderboardError) {
        guard abs(kept + amount) <= LeaderboardInput.maxValue else { throw .sumOutOfRange(name) }
    }

    /// The records that have room for `amount`: the condition of the increment itself, so a
    /// concurrent write can't slip between a check and the write.
    static func room(for amount: Double) -> JSONValue {
        let bound = LeaderboardInput.maxValue
        return amount >= 0 ? ["value": ["$lte": .double(bound - amount)]] : ["value": ["$gte": .double(-bound - amount)]]
    }

    /// Adds `amount` to a member's sum in one conditional increment (or creates the record with
    /// it); a record another request created first is added to again.
    func add(_ amount: Double, of member: String, to board: Leaderboard, _ store: RecordStore) async throws(LeaderboardError)
        -> SumAddition
    {
        let id = Self.statisticId(board, version: board.version, member: member)
        let reached = JSONValue.int(now().leaderboardMilliseconds)
        let increment: JSONValue = ["__op": "Increment", "amount": .double(amount)]
        for _ in 0..<8 {
            if let written = try await store.update(
                RecordStore.statistics, id: id, ["value": increment, "reachedAtMs": reached], if: Self.room(for: amount))
            {
                return SumAddition(id: id, amount: amount, created: false, kept: written.fields["value"]?.doubleValue ?? amount)
            }
            if let record = try await store.find(RecordStore.statistics, ["objectId": .string(id)], limit: 1).first {
                // No room, or the sum changed between the two reads: then it is added to again.
                try Self.checkRoom(record.fields["value"]?.doubleValue ?? 0, amount, board.statisticName)
                continue
            }
            let fields = Self.statisticFields(board, member: member, value: amount, reached: reached)
            if try await store.create(RecordStore.statistics, fields, objectId: id) != nil {
                return SumAddition(id: id, amount: amount, created: true, kept: amount)
            }
        }
        throw .storageFailed
    }

    /// Takes back what a refused request added (newest first): each amount is subtracted, and a
    /// record the request created and that holds nothing else is removed.
    func takeBack(_ added: [SumAddition], _ store: RecordStore) async {
        for addition in added.reversed() {
            do {
                let back: JSONValue = ["__op": "Increment", "amount": .double(-addition.amount)]
                let written = try await store.update(RecordStore.statistics, id: addition.id, ["value": back])
                if addition.created, written?.fields["value"]?.doubleValue == 0 {
                    try await store.delete(RecordStore.statistics, id: addition.id, if: ["value": .double(0)])
                }
            } catch {
                logger.error("leaderboards: a refused sum could not be taken back", metadata: ["record": "\(addition.id)"])
            }
        }
    }

    /// A new statistic record's fields.
    static func statisticFields(_ board: Leaderboard, member: String, value: Double, reached: JSONValue) -> [String: JSONValue] {
        [
            "statisticName": .string(board.statisticName), "generation": .string(board.generation),
            "version": .int(Int64(board.version)), "member": .string(member), "memberKind": .string(board.memberKind.rawValue),
            "value": .double(value), "reachedAtMs": reached,
        ]
    }
}
