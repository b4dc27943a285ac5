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
            "delete", "/engine/cloud-queue/tasks", tag: "Cloud Queue",
            "Remove up to 1 000 tasks of a status, of one function when named: {removed} (master key).", access: .master,
            query: [
                .init(name: "status", type: "string", description: "queued, success or failed (running tasks end under their lease)."),
                .init(name: "function", type: "string", description: "Only this function's tasks."),
            ]),
        APIOperation(
            "get", "/engine/cloud-queue/tasks/{uniqueId}", tag: "Cloud Queue",
            "A task's status as LeanEngine answers it: uniqueId, status, finishedAt, statusCode, result, error, retryAt "
                + "(the master key's ?detail=1: the whole record with its attempts).",
            query: [.init(name: "detail", type: "string", description: "1: the whole record (master key).")]),
        APIOperation(
            "post", "/engine/cloud-queue/tasks/{uniqueId}/retry", tag: "Cloud Queue",
            "Put a failed task back in the queue with its attempts anew (master key).", access: .master,
            body: APIOperation.object([:])),
        APIOperation(
            "delete", "/engine/cloud-queue/tasks/{uniqueId}", tag: "Cloud Queue", "Remove a task (master key).", access: .master),
        APIOperation("get", "/engine/timers", tag: "Timers", "Every timer (master key).", access: .master, answer: APIOperation.ref("Results")),
        APIOperation(
            "post", "/engine/timers", tag: "Timers", "Add or replace a timer: a function on a Quartz cron or every N seconds (master key).",
            access: .master, body: timerBody, success: "201"),
        APIOperation("get", "/engine/timers/{name}", tag: "Timers", "A timer and its last run (master key).", access: .master),
        APIOperation("put", "/engine/timers/{name}", tag: "Timers", "Set a timer (master key).", access: .master, body: timerBody),
        APIOperation("delete", "/engine/timers/{name}", tag: "Timers", "Remove a timer (master key).", access: .master),
        APIOperation(
            "post", "/engine/timers/{name}/run", tag: "Timers", "Fire a timer now, out of its schedule: {uniqueId} (master key).",
            access: .master, body: APIOperation.object([:])),
    ]

    /// A timer's body.
    private static let timerBody = APIOperation.object(
        [
            "name": "string", "function": "string", "cron": "string", "every": "integer", "params": "object", "environment": "string",
            "user": "string", "enabled": "boolean", "timeZone": "string",
        ], required: ["function"])
}
