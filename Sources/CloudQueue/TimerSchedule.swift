public import Foundation

/// When a timer fires: on a cron expression, or every so many seconds.
public enum TimerSchedule: Sendable, Hashable {
    /// At the times a Quartz-style cron expression names, in the timer's time zone.
    case cron(CronSchedule)
    /// Every `seconds` seconds, at the instants that are whole multiples of it since
    /// 1970-01-01 00:00 UTC (every 60 s fires at each minute's :00), so every host and every
    /// restart agrees on them; the time zone plays no part.
    case every(seconds: Int)

    /// The shortest and longest interval taken: one second to 366 days. (LeanEngine's console
    /// offers minutes; seconds are accepted here for keep-alive pings.)
    public static let intervals = 1...31_622_400

    /// An interval schedule; refuses one outside `intervals`.
    public static func interval(seconds: Int) throws(CloudQueueError) -> TimerSchedule {
        guard intervals.contains(seconds) else {
            throw .badRequest(
                "An interval is a whole number of seconds from \(intervals.lowerBound) to \(intervals.upperBound).")
        }
        return .every(seconds: seconds)
    }

    /// The first fire time strictly after `date`; nil when there is none.
    public func nextFire(after date: Date, in timeZone: TimeZone) -> Date? {
        switch self {
        case .cron(let cron):
            return cron.nextFire(after: date, in: timeZone)
        case .every(let seconds):
            guard Self.intervals.contains(seconds) else { return nil }
            let interval = Double(seconds)
            let slots = (date.timeIntervalSince1970 / interval).rounded(.down) + 1
            return Date(timeIntervalSince1970: slots * interval)
        }
    }

    /// How the schedule reads: the cron expression, or `every 60s`.
    public var text: String {
        switch self {
        case .cron(let cron): cron.expression
        case .every(let seconds): "every \(seconds)s"
        }
    }
}
