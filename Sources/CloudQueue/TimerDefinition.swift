public import DataAPI
public import Foundation
public import JSON

/// A timer: a cloud function called on a schedule, in one environment, as the master or as a
/// user, with fixed params. Each firing is a task in the Cloud Queue.
public struct TimerDefinition: Sendable, Hashable {
    /// Where a timer was set.
    public enum Source: String, Sendable, Hashable {
        /// Over HTTP (`/1.1/engine/timers`) or the command line: an operator's, which a deploy's
        /// timer of the same name doesn't replace.
        case api
        /// By a deploy's `timers.json`.
        case deploy
    }

    /// Its name: 1 to 64 of `A-Z a-z 0-9 _ -` (it goes in URLs and task ids).
    public var name: String
    /// The cloud function each firing calls.
    public var function: String
    /// When it fires.
    public var schedule: TimerSchedule
    /// The environment whose code runs it.
    public var environment: EnvironmentName
    /// The params each call gets: a JSON object.
    public var params: JSONValue
    /// The user each call runs as; nil: the master.
    public var userId: String?
    /// A disabled timer keeps its definition and fires no more.
    public var enabled: Bool
    /// The zone a cron schedule's wall-clock times are read in (UTC unless given).
    public var timeZone: TimeZone
    /// Who set it.
    public var source: Source
    /// When it fires next; nil while disabled, or when its schedule has no time left.
    public var nextFireAt: Date?
    /// The time its last firing was due.
    public var lastFiredAt: Date?
    /// The uniqueId of the task of its last firing (its record is the last run's outcome).
    public var lastTaskId: String?

    /// A timer as set; the scheduler computes `nextFireAt` when it stores it.
    public init(
        name: String, function: String, schedule: TimerSchedule, environment: EnvironmentName = .production,
        params: JSONValue = [:], userId: String? = nil, enabled: Bool = true, timeZone: TimeZone = .gmt,
        source: Source = .api
    ) {
        self.name = name
        self.function = function
        self.schedule = schedule
        self.environment = environment
        self.params = params
        self.userId = userId
        self.enabled = enabled
        self.timeZone = timeZone
        self.source = source
    }

    /// The most timers an app may have.
    public static let maxTimers = 1_000
    /// The longest name.
    public static let maxNameLength = 64

    /// Refuses a name that isn't 1 to 64 of `A-Z a-z 0-9 _ -`.
    public static func checkName(_ name: String) throws(CloudQueueError) {
        guard (1...maxNameLength).contains(name.utf8.count), name.unicodeScalars.allSatisfy(TaskRequest.isNameCharacter) else {
            throw .badRequest("A timer's name is 1 to \(maxNameLength) letters, digits, '_' or '-'.")
        }
    }

    /// The definition with every bound checked: its name, and its function, params and user as
    /// a task of the queue takes them.
    public func validated(by settings: QueueSettings) throws(CloudQueueError) -> TimerDefinition {
        try Self.checkName(name)
        if case .every(let seconds) = schedule { _ = try TimerSchedule.interval(seconds: seconds) }
        _ = try firing(dueAt: Date(timeIntervalSince1970: 0)).validated(by: settings)
        return self
    }

    /// The task of the firing due at `time`. Its uniqueId is the same on every host
    /// (`timer-<name>-<epoch seconds>`), so the queue keeps one task however many hosts enqueue it.
    func firing(dueAt time: Date) -> TaskRequest {
        TaskRequest(
            function: function, params: params, environment: environment, userId: userId,
            priority: Self.firingPriority, uniqueId: Self.firingId(name, dueAt: time), origin: .timer(name))
    }

    /// A firing's priority: below any a task may ask for, so no backlog (code's or a client's
    /// through a hook) makes a schedule late by going first.
    static let firingPriority: Int64 = -TaskRequest.maxPriority - 1

    /// The uniqueId of a firing.
    static func firingId(_ name: String, dueAt time: Date) -> String {
        "timer-\(name)-\(Int64(time.timeIntervalSince1970.rounded(.down)))"
    }
}
