import CloudQueue
import DataAPI
import Hummingbird
import JSON

/// The Cloud Queue's REST API, LeanEngine's where it has one:
///
/// - `POST /engine/cloud-queue/tasks` (the master key, or the hook key LeanEngine's code
///   enqueues with) `{"function", "params", "attempts", "backoff", "delay", "deliveryMode",
///   "keepResult", "priority", "timeout", "uniqueId", "prod"}` → `{"uniqueId"}`; `user` (an
///   objectId or a `_User` pointer) runs the task as that user, and only the master key may name one;
/// - `GET /engine/cloud-queue/tasks/:uniqueId` (the app key: LeanEngine lets clients poll) →
///   LeanEngine's fields only (`TaskRecord.leanEngineJSON`); with the master key and `?detail=1`,
///   the whole record with its attempts (`functionhost tasks show`);
/// - master key only: `GET /engine/cloud-queue/tasks?status=&limit=&after=` the tasks with
///   their attempts, `POST .../tasks/:uniqueId/retry` a failed task back in the queue,
///   `DELETE .../tasks/:uniqueId`, and `DELETE .../tasks?status=queued&function=` up to 1 000
///   tasks of a status (of one function) at once → `{"removed"}`.
struct QueueRoutes: Sendable {
    let queue: CloudQueue

    /// What a caller without the master key is answered on the master-only routes.
    static let refusal = HostError(status: .unauthorized, code: 401, message: "Managing the Cloud Queue needs the master key.")

    /// Adds the enqueue and status routes to `group` and the rest to `masterOnly`.
    func register(on group: RouterGroup<HostRequestContext>, masterOnly: RouterGroup<HostRequestContext>) {
        group.post("engine/cloud-queue/tasks") { request, context in
            let caller = context.caller
            guard caller.isMaster || caller.presentedHookKey else {
                throw HostError(status: .unauthorized, code: 401, message: "Enqueueing a task needs the master key.")
            }
            var request = request
            let body = try await request.jsonObject(context: context)
            let task = try TaskRequestBody.parse(body, mayNameUser: caller.isMaster)
            let record = try await queue.enqueue(task)
            return JSONResponse(["uniqueId": .string(record.uniqueId)])
        }
        group.get("engine/cloud-queue/tasks/:uniqueId") { request, context in
            let uniqueId = try context.parameters.require("uniqueId")
            // A timer's firings run as the master and their ids follow from the timer's name and
            // schedule: only the master key reads them (anyone else is told there is no such task).
            guard let record = try await queue.task(uniqueId: uniqueId), context.caller.isMaster || !record.origin.isTimer else {
                throw CloudQueueError.taskNotFound(uniqueId)
            }
            let detail = context.caller.isMaster && request.uri.queryParameters["detail"] == "1"
            return JSONResponse(detail ? record.masterJSON : record.leanEngineJSON)
        }
        masterOnly.get("engine/cloud-queue/tasks") { request, _ in
            let query = request.queryParameters
            let status = try query["status"].map { text -> TaskStatus in
                guard let status = TaskStatus(rawValue: text) else {
                    throw HostError(
                        status: .badRequest, code: 1,
                        message: "status must be one of \(TaskStatus.allCases.map(\.rawValue).joined(separator: ", ")).")
                }
                return status
            }
            let limit = try query["limit"].map { text -> Int in
                guard let limit = Int(text), (1...CloudQueue.maxListLimit).contains(limit) else {
                    throw HostError(status: .badRequest, code: 1, message: "limit must be 1 to \(CloudQueue.maxListLimit).")
                }
                return limit
            }
            let records = try await queue.tasks(status: status, limit: limit ?? CloudQueue.maxListLimit, after: query["after"])
            return JSONResponse(["results": .array(records.map(\.masterJSON))])
        }
        masterOnly.post("engine/cloud-queue/tasks/:uniqueId/retry") { _, context in
            JSONResponse(try await queue.retry(uniqueId: try context.parameters.require("uniqueId")).masterJSON)
        }
        masterOnly.delete("engine/cloud-queue/tasks") { request, _ in
            let query = request.uri.queryParameters
            guard let text = query["status"], let status = TaskStatus(rawValue: String(text)) else {
                throw HostError(
                    status: .badRequest, code: 1,
                    message: "status must be one of queued, success, failed: the tasks to remove.")
            }
            let removed = try await queue.purge(status: status, function: query["function"].map { String($0) })
            return JSONResponse(["removed": .int(Int64(removed))])
        }
        masterOnly.delete("engine/cloud-queue/tasks/:uniqueId") { _, context in
            try await queue.remove(uniqueId: try context.parameters.require("uniqueId"))
            return JSONResponse([:])
        }
    }
}
