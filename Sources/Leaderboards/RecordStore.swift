import DataAPI
import JSON
import Logging

/// The leaderboards' records (`_Leaderboard`, `_LeaderboardStatistic`, `_LeaderboardArchive`),
/// read and written through the data service as the host: the one caller that reaches these
/// classes, without hooks, in the environment of the request (whose users the boards rank).
/// Every operation is one statement of the database's, so several hosts on one PostgreSQL
/// database share the boards as one host does.
struct RecordStore: Sendable {
    /// The service the records are written through.
    let data: DataService
    /// Where storage failures are logged (the client sees `storageFailed`).
    let logger: Logger
    /// The host in the request's environment.
    let caller: Caller

    static let boards = "_Leaderboard"
    static let statistics = "_LeaderboardStatistic"
    static let archives = "_LeaderboardArchive"

    /// The store of `environment`'s records.
    init(data: DataService, logger: Logger, environment: EnvironmentName) {
        self.data = data
        self.logger = logger
        var caller = Caller.master.withoutHooks
        caller.environment = environment
        self.caller = caller
    }

    /// Stores a new record; nil when one with that objectId exists.
    func create(_ className: String, _ fields: [String: JSONValue], objectId: String) async throws(LeaderboardError) -> StoredObject? {
        var body = fields
        body["ACL"] = [:]
        do {
            return try await data.create(className, body: body, objectId: objectId, caller: caller)
        } catch let error as DataAPIError where error.code == .duplicateValue {
            return nil
        } catch {
            throw failed(error, "create")
        }
    }

    /// Applies `body` (values and operations) to a record if it matches `condition`; nil when
    /// it doesn't or is gone.
    func update(
        _ className: String, id: String, _ body: [String: JSONValue], if condition: JSONValue? = nil
    ) async throws(LeaderboardError) -> StoredObject? {
        do {
            let predicate = try condition.map { try QueryPredicate(where: $0) }
            return try await data.update(className, id: id, body: body, condition: predicate, caller: caller).object
        } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
            return nil
        } catch {
            throw failed(error, "update")
        }
    }

    /// The records matching `condition`, in `order`.
    func find(
        _ className: String, _ condition: JSONValue, order: [SortKey] = [], skip: Int = 0, limit: Int
    ) async throws(LeaderboardError) -> [StoredObject] {
        guard limit > 0 else { return [] }
        do {
            var query = ObjectQuery(className: className, predicate: try QueryPredicate(where: condition), order: order, limit: limit)
            query.skip = skip
            return try await data.find(query, caller: caller).objects
        } catch let error as DataAPIError where error.code == .objectNotFound {
            return []  // Nothing was ever stored: the class doesn't exist yet.
        } catch {
            throw failed(error, "find")
        }
    }

    /// How many records match `condition`, counted by the database.
    func count(_ className: String, _ condition: JSONValue) async throws(LeaderboardError) -> Int {
        do {
            let query = ObjectQuery(className: className, predicate: try QueryPredicate(where: condition), limit: 0)
            return try await data.find(query, withCount: true, caller: caller).count ?? 0
        } catch let error as DataAPIError where error.code == .objectNotFound {
            return 0
        } catch {
            throw failed(error, "count")
        }
    }

    /// Deletes a record if it matches `condition`; whether it did.
    @discardableResult
    func delete(_ className: String, id: String, if condition: JSONValue? = nil) async throws(LeaderboardError) -> Bool {
        do {
            try await data.delete(className, id: id, condition: try condition.map { try QueryPredicate(where: $0) }, caller: caller)
            return true
        } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
            return false
        } catch {
            throw failed(error, "delete")
        }
    }

    /// Deletes every record matching `condition`, a thousand at a time.
    func deleteAll(_ className: String, _ condition: JSONValue) async throws(LeaderboardError) {
        while true {
            let ids = try await find(className, condition, limit: DataService.maxDeleteIds).map(\.objectId)
            guard !ids.isEmpty else { return }
            do {
                _ = try await data.deleteAll(className, ids: ids, caller: caller)
            } catch {
                throw failed(error, "delete")
            }
            if ids.count < DataService.maxDeleteIds { return }
        }
    }

    /// Logs a storage failure and gives the error the caller sees.
    private func failed(_ error: any Error, _ operation: String) -> LeaderboardError {
        .storage(error, "\(operation)", logger: logger)
    }
}
