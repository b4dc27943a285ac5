import DataAPI
import Foundation
import JSON

/// A task's record as the `_CloudTask` object holds it. Times are milliseconds since 1970, so
/// the database compares them as numbers; params, result and history are JSON text, so the data
/// layer stores exactly what was given (an object there would be read as operations, pointers
/// and dates).
extension TaskRecord {
    /// The stored fields (every one, so an update replaces them all; absent values are null).
    var storedFields: [String: JSONValue] {
        func time(_ date: Date?) -> JSONValue { date.map { .int($0.milliseconds) } ?? .null }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        return [
            "uniqueId": .string(uniqueId), "function": .string(function), "paramsJSON": .string(params.jsonString),
            "environment": .string(environment.rawValue), "userId": text(userId), "status": .string(status.rawValue),
            "attempt": .int(Int64(attempt)), "attempts": .int(Int64(attempts)), "failures": .int(Int64(failures)),
            "lost": .int(Int64(lost)), "backoffMs": .int(backoff.milliseconds), "keepResultMs": .int(keepResult.milliseconds),
            "deliveryMode": .string(deliveryMode.rawValue), "priority": .int(priority), "timeoutMs": .int(timeout.milliseconds),
            "runAt": time(runAt), "leaseOwner": text(leaseOwner), "leaseUntil": time(leaseUntil), "finishedAt": time(finishedAt),
            "expiresAt": time(expiresAt), "statusCode": statusCode.map { .int(Int64($0)) } ?? .null,
            "resultJSON": text(result?.jsonString), "error": text(error), "retryAt": time(retryAt),
            "enqueuedAt": time(createdAt), "origin": .string(origin.stored),
            "historyJSON": .string(JSONValue.array(history.map(\.storedJSON)).jsonString),
        ]
    }

    /// The record a stored object holds; nil when it isn't one (a field missing or malformed).
    init?(stored object: StoredObject) {
        let fields = object.fields
        func int(_ key: String) -> Int64? { fields[key]?.intValue }
        func time(_ key: String) -> Date? { int(key).map(Date.init(milliseconds:)) }
        func text(_ key: String) -> String? { fields[key]?.stringValue }
        func json(_ key: String) -> JSONValue? { text(key).flatMap { try? JSONValue(parsing: $0) } }
        guard let uniqueId = text("uniqueId"), let function = text("function"),
            let environment = text("environment").flatMap(EnvironmentName.init(rawValue:)),
            let status = text("status").flatMap(TaskStatus.init(rawValue:)),
            let mode = text("deliveryMode").flatMap(DeliveryMode.init(rawValue:)), let runAt = time("runAt"),
            let createdAt = time("enqueuedAt")
        else { return nil }
        self.init(
            uniqueId: uniqueId, function: function, params: json("paramsJSON") ?? [:], environment: environment,
            userId: text("userId"), status: status, attempt: Int(int("attempt") ?? 0), attempts: Int(int("attempts") ?? 1),
            failures: Int(int("failures") ?? 0), lost: Int(int("lost") ?? 0), backoff: .milliseconds(int("backoffMs") ?? 0),
            keepResult: .milliseconds(int("keepResultMs") ?? 0), deliveryMode: mode, priority: int("priority") ?? 0,
            timeout: .milliseconds(int("timeoutMs") ?? 60_000), runAt: runAt, leaseOwner: text("leaseOwner"),
            leaseUntil: time("leaseUntil"), finishedAt: time("finishedAt"), expiresAt: time("expiresAt"),
            statusCode: int("statusCode").map { Int($0) }, result: json("resultJSON"), error: text("error"),
            retryAt: time("retryAt"), createdAt: createdAt, origin: TaskOrigin(stored: text("origin") ?? "api"),
            history: (json("historyJSON")?.arrayValue ?? []).compactMap(TaskAttempt.init(storedJSON:)))
    }
}

extension TaskAttempt {
    /// The attempt as its record's history keeps it.
    var storedJSON: JSONValue {
        var body: [String: JSONValue] = [
            "number": .int(Int64(number)), "host": .string(host), "startedAt": .int(startedAt.milliseconds),
            "endedAt": .int(endedAt.milliseconds), "outcome": .string(outcome.rawValue),
            "logs": .array(logs.map(JSONValue.string)),
        ]
        if let statusCode { body["statusCode"] = .int(Int64(statusCode)) }
        if let error { body["error"] = .string(error) }
        return .object(body)
    }

    /// The attempt a history entry holds; nil when it isn't one.
    init?(storedJSON json: JSONValue) {
        guard let number = json["number"]?.intValue, let host = json["host"]?.stringValue,
            let started = json["startedAt"]?.intValue, let ended = json["endedAt"]?.intValue,
            let outcome = json["outcome"]?.stringValue.flatMap(Outcome.init(rawValue:))
        else { return nil }
        self.init(
            number: Int(number), host: host, startedAt: Date(milliseconds: started), endedAt: Date(milliseconds: ended),
            outcome: outcome, statusCode: json["statusCode"]?.intValue.map { Int($0) }, error: json["error"]?.stringValue,
            logs: (json["logs"]?.arrayValue ?? []).compactMap(\.stringValue))
    }
}
