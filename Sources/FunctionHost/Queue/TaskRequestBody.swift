import CloudQueue
import DataAPI
import HTTPTypes
import JSON

/// The body of `POST /engine/cloud-queue/tasks` read into a `TaskRequest`: LeanEngine's flat
/// fields (`AV.Cloud.enqueue` sends its options beside `function` and `params`), times in
/// milliseconds. Keys it doesn't know are ignored, as LeanEngine ignores them (its own demo
/// sends a misspelt `deplay`). The queue checks every bound (`TaskRequest.validated`); here each
/// field's type is checked, so a wrong one is a clear 400 rather than a default.
enum TaskRequestBody {
    /// The task the body asks for. `mayNameUser` (the master key) lets it name a `user` to run as.
    static func parse(_ body: [String: JSONValue], mayNameUser: Bool) throws -> TaskRequest {
        guard let function = body["function"]?.stringValue, !function.isEmpty else {
            throw badRequest("function is required: the name of the cloud function to run.")
        }
        var task = TaskRequest(function: function, params: body["params"] ?? [:], origin: .api)
        if case .null? = body["params"] { task.params = [:] }
        if let prod = body["prod"], prod != .null {
            switch prod {
            case .int(0), .bool(false), .string("0"): task.environment = .staging
            case .int(1), .bool(true), .string("1"): task.environment = .production
            default: throw badRequest("prod must be 0 (staging) or 1 (production).")
            }
        }
        if let attempts = try integer(body, "attempts") {
            guard let value = Int(exactly: attempts) else { throw badRequest("attempts must be 1 to \(TaskRequest.maxAttempts).") }
            task.attempts = value
        }
        if let backoff = try integer(body, "backoff") { task.backoff = .milliseconds(backoff) }
        if let delay = try integer(body, "delay") { task.delay = .milliseconds(delay) }
        if let keep = try integer(body, "keepResult") { task.keepResult = .milliseconds(keep) }
        if let timeout = try integer(body, "timeout") { task.timeout = .milliseconds(timeout) }
        task.priority = try integer(body, "priority")
        if let mode = body["deliveryMode"], mode != .null {
            guard let text = mode.stringValue, let value = DeliveryMode(rawValue: text) else {
                throw badRequest("deliveryMode must be atLeastOnce or atMostOnce.")
            }
            task.deliveryMode = value
        }
        if let uniqueId = body["uniqueId"], uniqueId != .null {
            guard let text = uniqueId.stringValue else { throw badRequest("uniqueId must be a string.") }
            task.uniqueId = text
        }
        if let user = body["user"], user != .null {
            // Who a task acts as is the operator's choice alone: the hook key enqueues as master.
            guard mayNameUser else {
                throw HostError(status: .forbidden, code: 119, message: "Only the master key may run a task as a user.")
            }
            guard let id = user.stringValue ?? pointerId(user) else {
                throw badRequest("user must be a user's objectId or a _User pointer.")
            }
            task.userId = id
        }
        return task
    }

    /// A `_User` pointer's objectId.
    private static func pointerId(_ value: JSONValue) -> String? {
        guard value["__type"]?.stringValue == "Pointer", value["className"]?.stringValue == "_User" else { return nil }
        return value["objectId"]?.stringValue
    }

    /// An integer field (a whole JSON number); nil when absent or null. Milliseconds past what
    /// the queue allows are refused by its own bounds, with the bound named.
    private static func integer(_ body: [String: JSONValue], _ key: String) throws -> Int64? {
        switch body[key] {
        case nil, .null?: return nil
        case .int(let value)?: return value
        case .double(let value)? where value.rounded() == value && abs(value) < 9.0e15: return Int64(value)
        default: throw badRequest("\(key) must be an integer.")
        }
    }

    private static func badRequest(_ message: String) -> HostError {
        HostError(status: .badRequest, code: 1, message: message)
    }
}
