import DataAPI
public import Foundation
public import JSON

/// A timer as JSON: what `POST/PUT /1.1/engine/timers` and a deploy's `timers.json` give,
/// `{"name", "function", "cron" | "every", "params"?, "environment"?, "user"?, "enabled"?,
/// "timeZone"?}`, and what the listing answers (those and `source`, `nextFireAt`,
/// `lastFiredAt`, `lastTaskId`).
extension TimerDefinition {
    /// The keys a body may have.
    static let bodyKeys: Set<String> = ["name", "function", "cron", "every", "params", "environment", "user", "enabled", "timeZone"]

    /// The timer a body describes. `name` (from the URL) wins over the body's, which must
    /// agree when both are given; `defaultTimeZone` is the host's (`--timers-timezone`).
    ///
    /// - Throws: `badRequest` naming what is missing, unknown or malformed.
    public init(
        body: JSONValue, name: String? = nil, source: Source = .api, defaultTimeZone: TimeZone = .gmt
    ) throws(CloudQueueError) {
        guard case .object(let fields) = body else { throw .badRequest("A timer is a JSON object.") }
        if let unknown = fields.keys.sorted().first(where: { !Self.bodyKeys.contains($0) }) {
            throw .badRequest("A timer has no field '\(unknown.prefix(64))'; it takes \(Self.bodyKeys.sorted().joined(separator: ", ")).")
        }
        func text(_ key: String) throws(CloudQueueError) -> String? {
            switch fields[key] {
            case nil, .null?: return nil
            case .string(let value)?: return value
            default: throw .badRequest("A timer's \(key) is a string.")
            }
        }
        let bodyName = try text("name")
        if let name, let bodyName, name != bodyName {
            throw .badRequest("The timer's name in the body ('\(bodyName.prefix(64))') differs from the one in the URL.")
        }
        guard let timerName = name ?? bodyName else { throw .badRequest("A timer needs a name.") }
        guard let function = try text("function") else { throw .badRequest("A timer needs a function.") }
        let schedule: TimerSchedule
        switch (try text("cron"), fields["every"]) {
        case (let cron?, nil), (let cron?, .null?): schedule = .cron(try CronSchedule(cron))
        case (nil, let every?):
            guard let seconds = every.intValue, let exact = Int(exactly: seconds) else {
                throw .badRequest("A timer's every is a whole number of seconds.")
            }
            schedule = try TimerSchedule.interval(seconds: exact)
        default: throw .badRequest("A timer needs either cron (a Quartz expression) or every (seconds).")
        }
        var environment = EnvironmentName.production
        if let value = try text("environment") {
            guard let named = EnvironmentName(rawValue: value) else {
                throw .badRequest("A timer's environment is production or staging.")
            }
            environment = named
        }
        var enabled = true
        switch fields["enabled"] {
        case nil, .null?: break
        case .bool(let value)?: enabled = value
        default: throw .badRequest("A timer's enabled is true or false.")
        }
        var timeZone = defaultTimeZone
        if let identifier = try text("timeZone") {
            guard identifier.utf8.count <= 64, let zone = TimeZone(identifier: identifier) else {
                throw .badRequest("A timer's timeZone is a zone name such as Asia/Shanghai or UTC.")
            }
            timeZone = zone
        }
        self.init(
            name: timerName, function: function, schedule: schedule, environment: environment,
            params: fields["params"].flatMap { $0 == .null ? nil : $0 } ?? [:], userId: try text("user"), enabled: enabled,
            timeZone: timeZone, source: source)
    }

    /// The timer as the listing answers it (dates as ISO-8601 UTC strings).
    public var json: JSONValue {
        var body: [String: JSONValue] = [
            "name": .string(name), "function": .string(function), "params": params, "environment": .string(environment.rawValue),
            "enabled": .bool(enabled), "timeZone": .string(timeZone.identifier), "source": .string(source.rawValue),
        ]
        switch schedule {
        case .cron(let cron): body["cron"] = .string(cron.expression)
        case .every(let seconds): body["every"] = .int(Int64(seconds))
        }
        if let userId { body["user"] = .string(userId) }
        func date(_ value: Date?) -> JSONValue {
            value.map { .string(ISODate.string(fromMilliseconds: $0.milliseconds)) } ?? .null
        }
        body["nextFireAt"] = date(nextFireAt)
        body["lastFiredAt"] = date(lastFiredAt)
        body["lastTaskId"] = lastTaskId.map(JSONValue.string) ?? .null
        return .object(body)
    }
}
