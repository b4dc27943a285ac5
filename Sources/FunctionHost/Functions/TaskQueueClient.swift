public import CloudQueue
public import DataAPI
import Foundation
import HTTPTypes
public import JSON
import Sandbox

/// The Cloud Queue as a function's own code reaches it: `request.queue.enqueue(...)` in Swift,
/// `AV.Cloud.enqueue` and `AV.Cloud.getTaskInfo` in JavaScript.
///
/// A task enqueued from code runs in the environment of the code that enqueued it (LeanEngine's
/// SDK sends `prod: 0` from staging), as the master (LeanEngine's queue calls with the hook
/// key) unless the code names a user. Code may name any user: it is the app's server code, as
/// `data.asMaster` is; what a client sent reaches a task only through what that code chose.
public struct TaskQueueClient: Sendable {
    /// The host's queue; nil where none runs (a host built without one).
    let queue: CloudQueue?
    /// The environment whose code enqueues: its tasks run there.
    public let environment: EnvironmentName

    /// A client for code of `environment` over `queue`.
    public init(queue: CloudQueue?, environment: EnvironmentName) {
        self.queue = queue
        self.environment = environment
    }

    /// Queues a call of `request.function`, in this code's environment, from code (its
    /// `environment` and `origin` are set here, whatever they were).
    ///
    /// - Returns: the task as stored (its `uniqueId` generated when the request had none).
    /// - Throws: the queue's refusal: 400 for a bound broken, 137 for a uniqueId taken, 429 when
    ///   the queue is full; 108 where no queue runs.
    public func enqueue(_ request: TaskRequest) async throws(CloudQueueError) -> TaskRecord {
        var request = request
        request.environment = environment
        request.origin = .code
        return try await available().enqueue(request)
    }

    /// Queues a call of `function` with `params`, the other options at LeanEngine's defaults.
    public func enqueue(_ function: String, params: JSONValue = .object([:])) async throws(CloudQueueError) -> TaskRecord {
        try await enqueue(TaskRequest(function: function, params: params, environment: environment))
    }

    /// A task as LeanEngine's `GET /1.1/engine/cloud-queue/tasks/:uniqueId` answers it
    /// (`{uniqueId, status, finishedAt?, statusCode?, result?, error?, retryAt?}`).
    ///
    /// - Throws: 404 when no task of this code's environment has that id (or its record was
    ///   swept): staging's code doesn't read production's tasks, nor production's staging's.
    ///   108 where no queue runs.
    public func taskInfo(uniqueId: String) async throws(CloudQueueError) -> JSONValue {
        guard let record = try await available().task(uniqueId: uniqueId, in: environment) else {
            throw CloudQueueError.taskNotFound(uniqueId)
        }
        return record.leanEngineJSON
    }

    /// The queue, or 108 (LeanCloud's "command unavailable") where none runs.
    private func available() throws(CloudQueueError) -> CloudQueue {
        guard let queue else {
            throw CloudQueueError(.badRequest, code: 108, "The Cloud Queue isn't available here.")
        }
        return queue
    }

    /// `cloud.enqueue` and `cloud.taskInfo` of the sandbox's bridge: the arguments as
    /// `BridgeOperation` declares them (the REST body's fields, read by the route's own
    /// `TaskRequestBody`), the answer as LeanEngine's SDK receives it.
    func perform(_ operation: BridgeOperation, arguments: JSONValue) async throws(HostCallError) -> JSONValue {
        do {
            switch operation {
            case .cloudTaskInfo:
                return try await taskInfo(uniqueId: arguments["uniqueId"]?.stringValue ?? "")
            default:
                var fields = arguments.objectValue ?? [:]
                // The environment is the enqueuing code's (`enqueue` sets it), never a `prod` the code sends.
                fields["prod"] = nil
                // The code may name the user the task runs as: it is the app's server code.
                let record = try await enqueue(try TaskRequestBody.parse(fields, mayNameUser: true))
                return ["uniqueId": .string(record.uniqueId)]
            }
        } catch {
            let mapped = HostError(mapping: error)
            throw HostCallError(
                code: mapped?.code ?? 1, message: mapped?.message ?? String(describing: error), status: mapped.map { Int($0.status.code) })
        }
    }
}
