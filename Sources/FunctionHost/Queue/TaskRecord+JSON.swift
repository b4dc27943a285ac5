import CloudQueue
import DataAPI
import Foundation
import JSON

extension TaskRecord {
    /// The whole record as the master key's listing shows it (`functionhost tasks`): LeanEngine's
    /// fields and the queue's own (the function, its params, its user, its attempts with their
    /// logs, the lease). A client's status poll gets `leanEngineJSON` only.
    var masterJSON: JSONValue {
        guard case .object(var body) = leanEngineJSON else { return leanEngineJSON }
        body["status"] = .string(status.rawValue)
        body["function"] = .string(function)
        body["params"] = params
        body["environment"] = .string(environment.rawValue)
        body["user"] = userId.map(JSONValue.string) ?? .null
        body["attempt"] = .int(Int64(attempt))
        body["attempts"] = .int(Int64(attempts))
        body["priority"] = .int(priority)
        body["timeout"] = .int(Self.milliseconds(timeout))
        body["runAt"] = Self.date(runAt)
        body["createdAt"] = Self.date(createdAt)
        body["origin"] = .string(origin.stored)
        if let leaseOwner { body["leaseOwner"] = .string(leaseOwner) }
        if let leaseUntil { body["leaseUntil"] = Self.date(leaseUntil) }
        if let error { body["error"] = .string(error) }
        body["history"] = .array(
            history.map { attempt in
                var json: [String: JSONValue] = [
                    "number": .int(Int64(attempt.number)), "host": .string(attempt.host), "startedAt": Self.date(attempt.startedAt),
                    "endedAt": Self.date(attempt.endedAt), "outcome": .string(attempt.outcome.rawValue),
                    "logs": .array(attempt.logs.map(JSONValue.string)),
                ]
                if let statusCode = attempt.statusCode { json["statusCode"] = .int(Int64(statusCode)) }
                if let error = attempt.error { json["error"] = .string(error) }
                return .object(json)
            })
        return .object(body)
    }

    private static func date(_ date: Date) -> JSONValue {
        .string(ISODate.string(fromMilliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded(.down))))
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
    }
}
