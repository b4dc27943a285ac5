import Crypto
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

    /// The objectId of a uniqueId's record: `q` and 24 hex digits of its SHA-256. The database
    /// keeps objectIds unique, so a second task with a uniqueId present can't be created.
    static func objectId(of uniqueId: String) -> String {
        "q" + SHA256.hash(data: Data(uniqueId.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    /// Stores a new task.
    ///
    /// - Throws: `duplicate` when a record with its uniqueId is kept.
    func create(_ record: TaskRecord) async throws(CloudQueueError) {
        var body = record.storedFields
        body["ACL"] = [:]
        do {
            _ = try await data.create(Self.className, body: body, objectId: Self.objectId(of: record.uniqueId), caller: Self.caller)
        } catch let error as DataAPIError where error.code == .duplicateValue {
            throw .duplicate(uniqueId: record.uniqueId)
        } catch {
            throw failed(error, "create")
        }
    }

    /// The task with this uniqueId, expired or not; nil when there is no record.
    func get(_ uniqueId: String) async throws(CloudQueueError) -> TaskRecord? {
        try await find(["objectId": .string(Self.objectId(of: uniqueId))], limit: 1).first
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

    /// The uniqueIds of the tasks matching a condition (their records are not read whole).
    func uniqueIds(_ condition: JSONValue, limit: Int) async throws(CloudQueueError) -> [String] {
        do {
            var query = ObjectQuery(className: Self.className, predicate: try QueryPredicate(where: condition), limit: limit)
            query.keys = KeySelection("uniqueId")
            return try await data.find(query, caller: Self.caller).objects.compactMap { $0.fields["uniqueId"]?.stringValue }
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
                Self.className, id: Self.objectId(of: record.uniqueId), body: record.storedFields,
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
    func delete(_ uniqueId: String, if condition: JSONValue? = nil) async throws(CloudQueueError) -> Bool {
        do {
            try await data.delete(
                Self.className, id: Self.objectId(of: uniqueId), condition: try condition.map { try QueryPredicate(where: $0) },
                caller: Self.caller)
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
