public import Foundation

/// A Quartz-style cron expression, as LeanEngine's timers take it: six fields
/// `second minute hour day-of-month month day-of-week` and an optional seventh, the year
/// (1970-2099).
///
/// Each field takes `*`, a value, a range `a-b` (wrapping when `a > b`: `FRI-MON`, `22-2`), a step
/// `*/n`, `a/n` or `a-b/n`, and comma lists of these; months `JAN`-`DEC` and days `SUN`-`SAT`
/// (any case) stand for their numbers, and days are numbered as Quartz does, 1 = SUN ... 7 = SAT.
/// One of day-of-month and day-of-week is `?` (or `*`, read as `?` there); day-of-month also
/// takes `L`, `L-n`, `nW` and `LW`, day-of-week `dL` and `d#n`, each alone in its field.
public struct CronSchedule: Sendable, Hashable, CustomStringConvertible {
    /// The longest expression taken.
    public static let maxLength = 200

    /// The expression as given.
    public let expression: String
    private let seconds: CronValues
    private let minutes: CronValues
    private let hours: CronValues
    private let days: CronDays
    private let months: CronValues
    /// nil: any year.
    private let years: CronValues?

    /// Parses `expression`; refuses one that is malformed, out of range, or that can never fire
    /// (`0 0 0 30 2 ?`), with a message naming the field and the reason.
    public init(_ expression: String) throws(CloudQueueError) {
        do {
            try self.init(parsing: expression)
        } catch {
            throw .badRequest("Invalid cron expression: \(error.message)")
        }
    }

    private init(parsing expression: String) throws(CronSyntaxError) {
        guard expression.utf8.count <= Self.maxLength else {
            throw CronSyntaxError(message: "longer than \(Self.maxLength) characters")
        }
        guard expression.unicodeScalars.allSatisfy({ $0.isASCII && ($0.value >= 0x20 || $0 == "\t") }) else {
            throw CronSyntaxError(message: "only ASCII characters are allowed")
        }
        let fields = expression.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count == 6 || fields.count == 7 else {
            throw CronSyntaxError(
                message: "expected 6 fields (second minute hour day-of-month month day-of-week) and an optional year, got \(fields.count)")
        }
        for (index, field) in fields.enumerated() where field.contains("?") && field != "?" {
            throw CronSyntaxError(message: "'?' stands alone in its field, not in '\(field)' (field \(index + 1))")
        }
        for (index, spec) in [(0, CronFieldSpec.second), (1, .minute), (2, .hour), (4, .month)] where fields[index] == "?" {
            throw spec.error("'?' is only for day-of-month or day-of-week")
        }
        self.expression = expression
        seconds = try CronFieldSpec.second.values(fields[0])
        minutes = try CronFieldSpec.minute.values(fields[1])
        hours = try CronFieldSpec.hour.values(fields[2])
        days = try CronDays(dayOfMonth: fields[3], dayOfWeek: fields[5])
        months = try CronFieldSpec.month.values(fields[4])
        if fields.count == 7, fields[6] == "?" {
            throw CronFieldSpec.year.error("'?' is only for day-of-month or day-of-week")
        }
        years = fields.count == 7 ? try CronFieldSpec.year.values(fields[6]) : nil
        // A schedule that fires never fires from 1970 on either, in any zone: UTC has every time.
        guard nextFire(after: Date(timeIntervalSince1970: -1), in: TimeZone(identifier: "UTC")!) != nil else {
            throw CronSyntaxError(message: "no date matches it (such as February 30th), so it would never fire")
        }
    }

    /// The expression.
    public var description: String { expression }

    /// The first time strictly after `date` (to the second) at which the schedule fires, reading
    /// its fields as wall-clock times in `timeZone`; nil when there is none (a list of years all
    /// past, or before 2100).
    ///
    /// Around a daylight-saving change a wall-clock time that doesn't exist that day (02:30 in
    /// New York on the spring change) is skipped, and one that happens twice (01:30 on the
    /// autumn change) fires once, at the first time Foundation's calendar gives for it.
    public func nextFire(after date: Date, in timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // Whole seconds: the first candidate is the next second after `date`.
        let start = Date(timeIntervalSince1970: (date.timeIntervalSince1970 + 1).rounded(.down))
        let from = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: start)
        guard let startYear = from.year, let startMonth = from.month, let startDay = from.day else { return nil }
        let startTime = TimeOfDay(hour: from.hour ?? 0, minute: from.minute ?? 0, second: from.second ?? 0)
        // The Gregorian calendar repeats its dates and weekdays every 400 years: what doesn't fire
        // within 400 years never does (the fifth Thursday of February comes once in 28 years, or
        // 40 across 2100). Listed years end at 2099.
        let lastYear = years == nil ? startYear + 400 : CronFieldSpec.year.range.upperBound
        guard startYear <= lastYear else { return nil }
        for year in startYear...lastYear where years?.contains(year) ?? true {
            for month in months.values(from: year == startYear ? startMonth : 1) {
                let firstDay = year == startYear && month == startMonth ? startDay : 1
                let length = CivilDate.days(inMonth: month, year: year)
                guard firstDay <= length else { continue }
                for day in firstDay...length where days.contains(year: year, month: month, day: day) {
                    let isStartDay = year == startYear && month == startMonth && day == startDay
                    let date = Day(year: year, month: month, day: day, calendar: calendar)
                    if let fire = firstTime(on: date, from: isStartDay ? startTime : .midnight, notBefore: start) {
                        return fire
                    }
                }
            }
        }
        return nil
    }

    /// The earliest allowed time on `day` at or after the wall-clock `lower` that exists there
    /// and is not before `instant`.
    private func firstTime(on day: Day, from lower: TimeOfDay, notBefore instant: Date) -> Date? {
        for hour in hours.values(from: lower.hour) {
            let minuteFrom = hour == lower.hour ? lower.minute : 0
            for minute in minutes.values(from: minuteFrom) {
                let secondFrom = hour == lower.hour && minute == lower.minute ? lower.second : 0
                for second in seconds.values(from: secondFrom) {
                    // A time skipped by a daylight-saving change is skipped here: the rest of its
                    // minute is skipped with it.
                    guard let fire = day.date(at: TimeOfDay(hour: hour, minute: minute, second: second)) else { break }
                    // The first instant of a repeated hour may come before `instant`, when the
                    // search starts in the repeat: that time has fired already.
                    if fire >= instant { return fire }
                }
            }
        }
        return nil
    }
}

/// A wall-clock time of day.
private struct TimeOfDay {
    var hour: Int
    var minute: Int
    var second: Int
    static let midnight = TimeOfDay(hour: 0, minute: 0, second: 0)
}

/// A calendar day in a zone, turning wall-clock times into instants.
private struct Day {
    let year: Int
    let month: Int
    let day: Int
    let calendar: Calendar

    /// The instant of `time` on this day; nil when that time doesn't exist there (the clock
    /// jumped over it), which Foundation answers with a neighbouring time that reads back
    /// different.
    func date(at time: TimeOfDay) -> Date? {
        let components = DateComponents(
            year: year, month: month, day: day, hour: time.hour, minute: time.minute, second: time.second)
        guard let date = calendar.date(from: components) else { return nil }
        let back = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        guard back.year == year, back.month == month, back.day == day, back.hour == time.hour,
            back.minute == time.minute, back.second == time.second
        else { return nil }
        return date
    }
}
