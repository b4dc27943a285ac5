public import DataAPI
import Foundation
import JSON
public import Logging

/// The `_Timer` records: timer definitions and their next fire times, read and written through
/// the data service as the host (the master caller that alone reaches the queue's classes,
/// without hooks), in production's database, so every host on it shares them.
public struct TimerStore: Sendable {
    /// The service the records are written through.
    let data: DataService
    /// Where storage failures are logged (the caller sees `storageFailed`).
    let logger: Logger
    /// New timers on this host count the stored ones and store theirs one at a time.
    private let admission = AdmissionLine()

    static let className = "_Timer"
    private static let caller = Caller.master.withoutHooks

    /// A store over the app's data service.
    public init(data: DataService, logger: Logger) {
        self.data = data
        self.logger = logger
    }

    /// The objectId of a timer's record: `t` and 24 hex digits of its name's SHA-256 (names hold
    /// `-` and `_`, which objectIds don't). The database keeps it unique: one record per name.
    static func objectId(of name: String) -> String {
        DerivedObjectId.make("t", from: name)
    }

    /// Every timer, by name.
    public func all() async throws(CloudQueueError) -> [TimerDefinition] {
        try await find([:], limit: TimerDefinition.maxTimers).sorted { $0.name < $1.name }
    }

    /// The enabled timers due at `now`, earliest first.
    func due(at now: Date) async throws(CloudQueueError) -> [TimerDefinition] {
        try await find(["enabled": true, "nextFireAt": ["$lte": .int(now.milliseconds)]], limit: TimerDefinition.maxTimers)
            .sorted { ($0.nextFireAt ?? now) < ($1.nextFireAt ?? now) }
    }

    /// The earliest next fire time of the enabled timers.
    func earliestFire() async throws(CloudQueueError) -> Date? {
        try await find(["enabled": true, "nextFireAt": ["$exists": true]], order: [SortKey(key: "nextFireAt", descending: false)], limit: 1)
            .first?.nextFireAt
    }

    /// The timer named `name`; nil when there is none.
    public func get(_ name: String) async throws(CloudQueueError) -> TimerDefinition? {
        try await find(["objectId": .string(Self.objectId(of: name))], limit: 1).first
    }

    /// Stores a timer, replacing the one of the same name.
    ///
    /// - Throws: `tooMany` for a new timer when `TimerDefinition.maxTimers` exist.
    @discardableResult
    public func put(_ timer: TimerDefinition) async throws(CloudQueueError) -> TimerDefinition {
        let id = Self.objectId(of: timer.name)
        do {
            if try await get(timer.name) != nil {
                _ = try await data.update(Self.className, id: id, body: timer.storedFields, caller: Self.caller)
                return timer
            }
            await admission.enter()
            defer { admission.leave() }
            guard try await count() < TimerDefinition.maxTimers else {
                throw CloudQueueError(.tooMany, code: 429, "Too many timers: an app may have at most \(TimerDefinition.maxTimers).")
            }
            var body = timer.storedFields
            body["ACL"] = [:]
            _ = try await data.create(Self.className, body: body, objectId: id, caller: Self.caller)
            return timer
        } catch let error as DataAPIError where error.code == .duplicateValue {
            // Another host created it meanwhile: the later write wins, as an update would.
            do {
                _ = try await data.update(Self.className, id: id, body: timer.storedFields, caller: Self.caller)
                return timer
            } catch {
                throw failed(error, "put")
            }
        } catch {
            throw failed(error, "put")
        }
    }

    /// Removes the timer named `name`; whether there was one.
    @discardableResult
    public func remove(_ name: String) async throws(CloudQueueError) -> Bool {
        // A delete of nothing succeeds (as LeanCloud's does): look first.
        guard try await get(name) != nil else { return false }
        do {
            try await data.delete(Self.className, id: Self.objectId(of: name), caller: Self.caller)
            return true
        } catch let error as DataAPIError where error.code == .objectNotFound {
            return false
        } catch {
            throw failed(error, "remove")
        }
    }

    /// Moves a timer's next fire time from `due` to `next`, recording the firing, if no host
    /// did it first (nor anyone changed the timer): whether this call did.
    func advance(_ name: String, from due: Date, to next: Date?, taskId: String?) async throws(CloudQueueError) -> Bool {
        var body: [String: JSONValue] = ["nextFireAt": next.map { .int($0.milliseconds) } ?? .null, "lastFiredAt": .int(due.milliseconds)]
        if let taskId { body["lastTaskId"] = .string(taskId) }
        do {
            _ = try await data.update(
                Self.className, id: Self.objectId(of: name), body: body,
                condition: try QueryPredicate(where: ["nextFireAt": .int(due.milliseconds)]), caller: Self.caller)
            return true
        } catch let error as DataAPIError where error.code == .conditionNotMatched || error.code == .objectNotFound {
            return false
        } catch {
            throw failed(error, "advance")
        }
    }

    /// Records a firing asked for by hand (`runNow`), leaving the schedule as it is.
    func recordRun(_ name: String, at time: Date, taskId: String) async throws(CloudQueueError) {
        do {
            _ = try await data.update(
                Self.className, id: Self.objectId(of: name),
                body: ["lastFiredAt": .int(time.milliseconds), "lastTaskId": .string(taskId)], caller: Self.caller)
        } catch let error as DataAPIError where error.code == .objectNotFound {
            return  // Removed meanwhile: nothing to record on.
        } catch {
            throw failed(error, "record")
        }
    }

    private func count() async throws -> Int {
        do {
            let query = ObjectQuery(className: Self.className, limit: 0)
            return try await data.find(query, withCount: true, caller: Self.caller).count ?? 0
        } catch let error as DataAPIError where error.code == .objectNotFound {
            return 0
        }
    }

    private func find(_ condition: JSONValue, order: [SortKey] = [], limit: Int) async throws(CloudQueueError) -> [TimerDefinition] {
        do {
            let query = ObjectQuery(className: Self.className, predicate: try QueryPredicate(where: condition), order: order, limit: limit)
            return try await data.find(query, caller: Self.caller).objects.compactMap(TimerDefinition.init(stored:))
        } catch let error as DataAPIError where error.code == .objectNotFound {
            return []  // No timer was ever stored: the class doesn't exist yet.
        } catch {
            throw failed(error, "find")
        }
    }

    /// Logs a storage failure and gives the error the caller sees.
    private func failed(_ error: any Error, _ operation: String) -> CloudQueueError {
        .storage(error, "timers: store \(operation)", logger: logger)
    }
}

/// A timer as the `_Timer` object holds it: times in milliseconds since 1970 (compared as
/// numbers), params as JSON text (stored exactly as given).
extension TimerDefinition {
    var storedFields: [String: JSONValue] {
        func time(_ date: Date?) -> JSONValue { date.map { .int($0.milliseconds) } ?? .null }
        var fields: [String: JSONValue] = [
            "name": .string(name), "function": .string(function), "environment": .string(environment.rawValue),
            "paramsJSON": .string(params.jsonString), "userId": userId.map(JSONValue.string) ?? .null, "enabled": .bool(enabled),
            "timeZone": .string(timeZone.identifier), "source": .string(source.rawValue), "nextFireAt": time(nextFireAt),
            "lastFiredAt": time(lastFiredAt), "lastTaskId": lastTaskId.map(JSONValue.string) ?? .null,
            "cron": .null, "everySeconds": .null,
        ]
        switch schedule {
        case .cron(let cron): fields["cron"] = .string(cron.expression)
        case .every(let seconds): fields["everySeconds"] = .int(Int64(seconds))
        }
        return fields
    }

    init?(stored object: StoredObject) {
        let fields = object.fields
        func time(_ key: String) -> Date? { fields[key]?.intValue.map(Date.init(milliseconds:)) }
        guard let name = fields["name"]?.stringValue, let function = fields["function"]?.stringValue,
            let environment = fields["environment"]?.stringValue.flatMap(EnvironmentName.init(rawValue:)),
            let timeZone = fields["timeZone"]?.stringValue.flatMap(TimeZone.init(identifier:))
        else { return nil }
        let schedule: TimerSchedule
        if let cron = fields["cron"]?.stringValue, let parsed = try? CronSchedule(cron) {
            schedule = .cron(parsed)
        } else if let seconds = fields["everySeconds"]?.intValue {
            schedule = .every(seconds: Int(seconds))
        } else {
            return nil
        }
        self.init(
            name: name, function: function, schedule: schedule, environment: environment,
            params: fields["paramsJSON"]?.stringValue.flatMap { try? JSONValue(parsing: $0) } ?? [:],
            userId: fields["userId"]?.stringValue, enabled: fields["enabled"]?.boolValue ?? false, timeZone: timeZone,
            source: fields["source"]?.stringValue.flatMap(Source.init(rawValue:)) ?? .api)
        nextFireAt = time("nextFireAt")
        lastFiredAt = time("lastFiredAt")
        lastTaskId = fields["lastTaskId"]?.stringValue
    }
}
