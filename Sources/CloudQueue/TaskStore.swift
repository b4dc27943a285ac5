import DataAPI
import Foundation
import JSON
import Logging

/// The `_CloudTask` records, read and written through the data service as the host (the master
/// caller that alone reaches the queue's classes, without hooks), in production's database
/// whichever environment a task runs in: the queue is the app's, as deploys are.
///
/// Every change of a task's state is a conditional update on the state it was read in, so two
/// hosts that read the same task can't both act on it: the database lets one update match.
struct TaskStore: Sendable {
    /// The service the records are written through.
    let data: DataService
    /// Where storage failures are logged (the client sees `storageFailed`).
    let logger: Logger

    static let className = "_CloudTask"
    private static let caller = Caller.master.withoutHooks

    /// The objectId of a uniqueId's record in an environment: `q` and 24 hex digits of the
    /// SHA-256 of the uniqueId (production's) or of `staging/` and it (staging's). The database
    /// keeps objectIds unique, so a second task with a uniqueId present in its environment can't
    /// be created; each environment has its own uniqueIds, so staging's code (which any client
    /// may call) can't take the ids production's code dedupes its jobs by.
    static func objectId(of uniqueId: String, in environment: EnvironmentName) -> String {
        let key = environment == .production ? uniqueId : "\(environment.rawValue)/\(uniqueId)"
        return DerivedObjectId.make("q", from: key)
    }

    /// Stores a new task.
    ///
    /// - Throws: `duplicate` when a record with its uniqueId is kept.
    func create(_ record: TaskRecord) async throws(CloudQueueError) {
        var body = record.storedFields
        body["ACL"] = [:]
        do {
            _ = try await data.create(
                Self.className, body: body, objectId: Self.objectId(of: record.uniqueId, in: record.environment), caller: Self.caller)
        } catch let error as DataAPIError where error.code == .duplicateValue {
            throw .duplicate(uniqueId: record.uniqueId)
        } catch {
            throw failed(error, "create")
        }
    }

    /// The task with this uniqueId in `environment`, or in any (production's first), expired or
    /// not; nil when there is no record.
    func get(_ uniqueId: String, in environment: EnvironmentName? = nil) async throws(CloudQueueError) -> TaskRecord? {
        let environments = environment.map { [$0] } ?? [.production, .staging]
        let ids = environments.map { JSONValue.string(Self.objectId(of: uniqueId, in: $0)) }
        let found = try await find(["objectId": ["$in": .array(ids)]], limit: ids.count)
        return environments.lazy.compactMap { environment in found.first { $0.environment == environment } }.first
    }

    /// The tasks matching a `where` condition, in `order`.
    func find(_ condition: JSONValue, order: [SortKey] = [], limit: Int) async throws(CloudQueueError) -> [TaskRecord] {
        do {
            let query = ObjectQuery(className: Self.className, predicate: try QueryPredicate(where: condition), order: order, limit: limit)
            return try await data.find(query, caller: Self.caller).objects.compactMap(TaskRecord.init(stored:))
        } catch let error as DataAPIError where error.code == .objectNotFound {
            return []  // No task was ever stored: the class doesn't exist yet.
        } catch {
            throw failed(error, "find")
        }
    }

    /// The objectIds of the tasks matching a condition (their records are not read whole).
    func objectIds(_ condition: JSONValue, order: [SortKey] = [], limit: Int) async throws(CloudQueueError) -> [String] {
        do {
            var query = ObjectQuery(
                className: Self.className, predicate: try QueryPredicate(where: condition), order: order, limit: limit)
            query.keys = KeySelection("uniqueId")
            return try await data.find(query, caller: Self.caller).objects.map(\.objectId)
        } catch let error as DataAPIError where error.code == .objectNotFound {
            return []
        } catch {
            throw failed(error, "find")
        }
    }

    /// How many tasks match a condition.
    func count(_ condition: JSONValue) async throws(CloudQueueError) -> Int {
        do {
            let query = ObjectQuery(className: Self.className, predicate: try QueryPredicate(where: condition), limit: 0)
            return try await data.find(query, withCount: true, caller: Self.caller).count ?? 0
        } catch let error as DataAPIError where error.code == .objectNotFound {
            return 0
        } catch {
            throw failed(error, "count")
        }
    }

    /// Replaces a task's record with `record` if the stored one still matches `condition`;
    /// nil when it doesn't (another host changed it first) or is gone.
    func replace(_ record: TaskRecord, if condition: JSONValue) async throws(CloudQueueError) -> TaskRecord? {
        do {
            let written = try await data.update(
                Self.className, id: Self.objectId(of: record.uniqueId, in: record.environment), body: record.storedFields,
                condition: try QueryPredicate(where: condition), caller: Self.caller)
            return TaskRecord(stored: written.object)
        } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
            return nil
        } catch {
            throw failed(error, "update")
        }
    }

    /// Deletes a task's record if it matches `condition` (any, when nil); whether it did.
    @discardableResult
    func delete(_ record: TaskRecord, if condition: JSONValue? = nil) async throws(CloudQueueError) -> Bool {
        try await delete(objectId: Self.objectId(of: record.uniqueId, in: record.environment), if: condition)
    }

    /// Deletes the record of this objectId if it matches `condition` (any, when nil); whether it did.
    @discardableResult
    func delete(objectId: String, if condition: JSONValue? = nil) async throws(CloudQueueError) -> Bool {
        do {
            try await data.delete(
                Self.className, id: objectId, condition: try condition.map { try QueryPredicate(where: $0) }, caller: Self.caller)
            return true
        } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
            return false
        } catch {
            throw failed(error, "delete")
        }
    }

    /// Logs a storage failure and gives the error the caller sees.
    private func failed(_ error: any Error, _ operation: String) -> CloudQueueError {
        .storage(error, "cloud queue: task store \(operation)", logger: logger)
    }
}
