public import Foundation

/// When versions end: 00:00 of the next day, of the next Monday, or of the next month's first day,
/// in one time zone (UTC, as LeanCloud's international regions reset; its Chinese regions reset
/// at 00:00 Beijing time, which `Asia/Shanghai` gives).
public struct ResetCalendar: Sendable {
    private let calendar: Calendar

    /// A calendar in `timeZone`.
    public init(timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // ISO weeks: they start on Monday, the day LeanCloud's weekly boards reset.
        calendar.firstWeekday = 2
        self.calendar = calendar
    }

    /// The first reset strictly after `date`; nil for `never`.
    public func nextReset(after date: Date, interval: VersionChangeInterval) -> Date? {
        let components: DateComponents
        switch interval {
        case .never: return nil
        case .day: components = DateComponents(hour: 0, minute: 0, second: 0, nanosecond: 0)
        case .week: components = DateComponents(hour: 0, minute: 0, second: 0, nanosecond: 0, weekday: 2)
        case .month: components = DateComponents(day: 1, hour: 0, minute: 0, second: 0, nanosecond: 0)
        }
        return calendar.nextDate(after: date, matching: components, matchingPolicy: .nextTime, direction: .forward)
    }
}
