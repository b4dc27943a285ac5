import DataAPI

extension OpenAPIDocument {
    /// The Cloud Queue (`QueueRoutes`).
    static let queueOperations: [APIOperation] = [
        APIOperation(
            "post", "/engine/cloud-queue/tasks", tag: "Cloud Queue",
            "Enqueue a task calling a cloud function (the master key or the hook key; only the master key names a user): {uniqueId}.",
            access: .master,
            body: APIOperation.object(
                [
                    "function": "string", "params": "object", "attempts": "integer", "backoff": "integer", "delay": "integer",
                    "deliveryMode": "string", "keepResult": "integer", "priority": "integer", "timeout": "integer",
                    "uniqueId": "string", "prod": "integer", "user": "string",
                ], required: ["function"])),
        APIOperation(
            "get", "/engine/cloud-queue/tasks", tag: "Cloud Queue", "The tasks with their attempts, by uniqueId (master key).",
            access: .master,
            query: [
                .init(name: "status", type: "string", description: "queued, running, success or failed (the dead letter)."),
                .init(name: "limit", type: "integer", description: "At most this many (1-100, default 100)."),
                .init(name: "after", type: "string", description: "Only the tasks whose uniqueId sorts after this one."),
            ], answer: APIOperation.ref("Results")),
        APIOperation(
            "get", "/engine/cloud-queue/tasks/{uniqueId}", tag: "Cloud Queue",
            "A task's status as LeanEngine answers it: uniqueId, status, finishedAt, statusCode, result, error, retryAt."),
        APIOperation(
            "post", "/engine/cloud-queue/tasks/{uniqueId}/retry", tag: "Cloud Queue",
            "Put a failed task back in the queue with its attempts anew (master key).", access: .master,
            body: APIOperation.object([:])),
        APIOperation(
            "delete", "/engine/cloud-queue/tasks/{uniqueId}", tag: "Cloud Queue", "Remove a task (master key).", access: .master),
    ]
}
