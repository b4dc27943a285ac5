import CloudQueue
import Foundation
import Testing

/// Quartz-style cron expressions: the times they fire, in UTC and in zones with daylight-saving
/// changes, and the expressions refused with their reasons.
@Suite struct CronScheduleTests {
    /// The next `count` fire times of `expression` after `start` (a wall-clock time in `zone`),
    /// each as the wall-clock time and UTC offset it fires at in `zone`.
    private func fires(_ expression: String, after start: String, in zone: String = "UTC", count: Int = 4) throws -> [String] {
        let schedule = try CronSchedule(expression)
        return times(.cron(schedule), after: start, in: zone, count: count)
    }

    private func times(_ schedule: TimerSchedule, after start: String, in zone: String, count: Int) -> [String] {
        let timeZone = TimeZone(identifier: zone)!
        var date = Self.date(start, in: timeZone)
        var answer: [String] = []
        for _ in 0..<count {
            guard let next = schedule.nextFire(after: date, in: timeZone) else { break }
            #expect(next > date)
            answer.append(Self.text(next, in: timeZone))
            date = next
        }
        return answer
    }

    private static func formatter(_ format: String, _ timeZone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = timeZone
        formatter.dateFormat = format
        return formatter
    }

    private static func date(_ text: String, in timeZone: TimeZone) -> Date {
        formatter("yyyy-MM-dd HH:mm:ss", timeZone).date(from: text)!
    }

    private static func text(_ date: Date, in timeZone: TimeZone) -> String {
        formatter("yyyy-MM-dd HH:mm:ss Z", timeZone).string(from: date)
    }

    /// The error a refused expression gets.
    private func refusal(_ expression: String) -> String? {
        do {
            _ = try CronSchedule(expression)
            return nil
        } catch {
            #expect(error.kind == .badRequest)
            return error.message
        }
    }

    @Test func everyDayAtNoonAndEveryFifteenSeconds() throws {
        #expect(try fires("0 0 12 * * ?", after: "2026-11-27 05:28:37", count: 3) == [
            "2026-11-27 12:00:00 +0000", "2026-11-28 12:00:00 +0000", "2026-11-29 12:00:00 +0000",
        ])
        #expect(try fires("*/15 * * * * ?", after: "2026-11-27 05:28:37") == [
            "2026-11-27 05:28:45 +0000", "2026-11-27 05:29:00 +0000", "2026-11-27 05:29:15 +0000", "2026-11-27 05:29:30 +0000",
        ])
        // Seconds starting at 5, every 20.
        #expect(try fires("5/20 * * * * ?", after: "2026-11-27 05:28:50") == [
            "2026-11-27 05:29:05 +0000", "2026-11-27 05:29:25 +0000", "2026-11-27 05:29:45 +0000", "2026-11-27 05:30:05 +0000",
        ])
    }

    @Test func strictlyAfterTheGivenTimeEvenWithinItsSecond() throws {
        let schedule = try CronSchedule("* * * * * ?")
        let start = Date(timeIntervalSince1970: 1_000.25)
        #expect(schedule.nextFire(after: start, in: .gmt) == Date(timeIntervalSince1970: 1_001))
        #expect(schedule.nextFire(after: Date(timeIntervalSince1970: 1_001), in: .gmt) == Date(timeIntervalSince1970: 1_002))
    }

    @Test func weekdaysWithNamesAndRanges() throws {
        // 2026-11-27 is a Friday.
        #expect(try fires("0 15 10 ? * MON-FRI", after: "2026-11-27 10:15:00", count: 3) == [
            "2026-11-30 10:15:00 +0000", "2026-12-01 10:15:00 +0000", "2026-12-02 10:15:00 +0000",
        ])
        // A range that wraps past Saturday; names in any case.
        #expect(try fires("0 0 12 ? * fri-Mon", after: "2026-11-26 12:00:00", count: 5) == [
            "2026-11-27 12:00:00 +0000", "2026-11-28 12:00:00 +0000", "2026-11-29 12:00:00 +0000",
            "2026-11-30 12:00:00 +0000", "2026-12-04 12:00:00 +0000",
        ])
        // Quartz numbers days from Sunday = 1: 2 and 6 are Monday and Friday.
        #expect(try fires("0 0 8 ? * 2,6", after: "2026-11-27 09:00:00", count: 3) == [
            "2026-11-30 08:00:00 +0000", "2026-12-04 08:00:00 +0000", "2026-12-07 08:00:00 +0000",
        ])
        // `*` in both day fields reads as every day.
        #expect(try fires("0 0 0 * * *", after: "2026-11-27 09:00:00", count: 2) == [
            "2026-11-28 00:00:00 +0000", "2026-11-29 00:00:00 +0000",
        ])
    }

    @Test func hoursMonthsListsAndSteps() throws {
        // An hour range that wraps past midnight.
        #expect(try fires("0 0 22-2 * * ?", after: "2026-11-27 21:00:00", count: 6) == [
            "2026-11-27 22:00:00 +0000", "2026-11-27 23:00:00 +0000", "2026-11-28 00:00:00 +0000",
            "2026-11-28 01:00:00 +0000", "2026-11-28 02:00:00 +0000", "2026-11-28 22:00:00 +0000",
        ])
        #expect(try fires("0 0/20 8-9 * * ?", after: "2026-11-27 07:00:00", count: 7) == [
            "2026-11-27 08:00:00 +0000", "2026-11-27 08:20:00 +0000", "2026-11-27 08:40:00 +0000",
            "2026-11-27 09:00:00 +0000", "2026-11-27 09:20:00 +0000", "2026-11-27 09:40:00 +0000",
            "2026-11-28 08:00:00 +0000",
        ])
        #expect(try fires("0 0 6,18 1,15 * ?", after: "2026-11-27 00:00:00", count: 4) == [
            "2026-12-01 06:00:00 +0000", "2026-12-01 18:00:00 +0000", "2026-12-15 06:00:00 +0000", "2026-12-15 18:00:00 +0000",
        ])
        #expect(try fires("0 0 0 1 */3 ?", after: "2026-11-27 00:00:00", count: 4) == [
            "2027-01-01 00:00:00 +0000", "2027-04-01 00:00:00 +0000", "2027-07-01 00:00:00 +0000", "2027-10-01 00:00:00 +0000",
        ])
        #expect(try fires("0 0 0 ? jan,JUL SUN#1", after: "2026-11-27 00:00:00", count: 3) == [
            "2027-01-03 00:00:00 +0000", "2027-07-04 00:00:00 +0000", "2028-01-02 00:00:00 +0000",
        ])
        // The 31st fires only in the months that have one.
        #expect(try fires("0 0 0 31 * ?", after: "2026-01-31 00:00:00", count: 3) == [
            "2026-03-31 00:00:00 +0000", "2026-05-31 00:00:00 +0000", "2026-07-31 00:00:00 +0000",
        ])
    }

    @Test func lastDaysNearestWeekdaysAndNthWeekdays() throws {
        #expect(try fires("0 0 0 L * ?", after: "2026-01-15 00:00:00") == [
            "2026-01-31 00:00:00 +0000", "2026-02-28 00:00:00 +0000", "2026-03-31 00:00:00 +0000", "2026-04-30 00:00:00 +0000",
        ])
        #expect(try fires("0 0 0 L * ?", after: "2028-02-01 00:00:00", count: 1) == ["2028-02-29 00:00:00 +0000"])
        #expect(try fires("0 0 0 L-2 * ?", after: "2026-01-01 00:00:00", count: 2) == [
            "2026-01-29 00:00:00 +0000", "2026-02-26 00:00:00 +0000",
        ])
        // The last Friday of each month.
        #expect(try fires("0 0 12 ? * 6L", after: "2026-01-01 00:00:00", count: 3) == [
            "2026-01-30 12:00:00 +0000", "2026-02-27 12:00:00 +0000", "2026-03-27 12:00:00 +0000",
        ])
        // The first Monday.
        #expect(try fires("0 0 9 ? * 2#1", after: "2026-01-01 00:00:00", count: 3) == [
            "2026-01-05 09:00:00 +0000", "2026-02-02 09:00:00 +0000", "2026-03-02 09:00:00 +0000",
        ])
        // The 15th of February and March 2026 are Sundays: Monday the 16th instead.
        #expect(try fires("0 0 9 15W * ?", after: "2026-01-01 00:00:00", count: 3) == [
            "2026-01-15 09:00:00 +0000", "2026-02-16 09:00:00 +0000", "2026-03-16 09:00:00 +0000",
        ])
        // 2026-08-01 is a Saturday: the nearest weekday within August is Monday the 3rd.
        #expect(try fires("0 0 9 1W AUG ?", after: "2026-01-01 00:00:00", count: 1) == ["2026-08-03 09:00:00 +0000"])
        // The last weekday: January 31st 2026 is a Saturday, May 31st a Sunday.
        #expect(try fires("0 0 18 LW JAN,MAY ?", after: "2026-01-01 00:00:00", count: 2) == [
            "2026-01-30 18:00:00 +0000", "2026-05-29 18:00:00 +0000",
        ])
        // A lone L in day-of-week is Saturday.
        #expect(try fires("0 0 0 ? * L", after: "2026-11-27 00:00:00", count: 1) == ["2026-11-28 00:00:00 +0000"])
    }

    @Test func rareDatesAndTheYearField() throws {
        #expect(try fires("0 0 0 29 2 ?", after: "2026-01-01 00:00:00", count: 3) == [
            "2028-02-29 00:00:00 +0000", "2032-02-29 00:00:00 +0000", "2036-02-29 00:00:00 +0000",
        ])
        // A fifth Thursday in February needs a leap year starting on a Thursday: 28 years apart.
        #expect(try fires("0 0 0 ? FEB 5#5", after: "2026-01-01 00:00:00", count: 2) == [
            "2052-02-29 00:00:00 +0000", "2080-02-29 00:00:00 +0000",
        ])
        #expect(try fires("0 30 9 1 JAN ? 2027-2028", after: "2026-11-27 00:00:00", count: 3) == [
            "2027-01-01 09:30:00 +0000", "2028-01-01 09:30:00 +0000",
        ])
        #expect(try fires("0 0 0 1 1 ? 2030/5", after: "2026-11-27 00:00:00", count: 2) == [
            "2030-01-01 00:00:00 +0000", "2035-01-01 00:00:00 +0000",
        ])
        // Years all past: it parses (it fired once) and has no next time.
        let past = try CronSchedule("0 0 0 1 1 ? 2020")
        #expect(past.nextFire(after: Date(timeIntervalSince1970: 1_800_000_000), in: .gmt) == nil)
        #expect(past.expression == "0 0 0 1 1 ? 2020")
    }

    @Test func newYorkSkipsTheMissingHourAndFiresTheRepeatedOneOnce() throws {
        let zone = "America/New_York"
        // 2026-03-08 02:30 doesn't exist in New York: skipped.
        #expect(try fires("0 30 2 * * ?", after: "2026-03-07 00:00:00", in: zone, count: 3) == [
            "2026-03-07 02:30:00 -0500", "2026-03-09 02:30:00 -0400", "2026-03-10 02:30:00 -0400",
        ])
        #expect(try fires("0 0 * * * ?", after: "2026-03-08 00:30:00", in: zone, count: 3) == [
            "2026-03-08 01:00:00 -0500", "2026-03-08 03:00:00 -0400", "2026-03-08 04:00:00 -0400",
        ])
        // 2026-11-01 01:30 happens twice: it fires once.
        #expect(try fires("0 30 1 * * ?", after: "2026-10-31 12:00:00", in: zone, count: 2) == [
            "2026-11-01 01:30:00 -0400", "2026-11-02 01:30:00 -0500",
        ])
        #expect(try fires("0 */30 * * * ?", after: "2026-11-01 00:45:00", in: zone, count: 4) == [
            "2026-11-01 01:00:00 -0400", "2026-11-01 01:30:00 -0400", "2026-11-01 02:00:00 -0500", "2026-11-01 02:30:00 -0500",
        ])
        // Starting within the repeat (01:10 EST, 06:10 UTC): 01:30 fired an hour before.
        let schedule = try CronSchedule("0 */30 * * * ?")
        let newYork = TimeZone(identifier: zone)!
        let next = schedule.nextFire(after: Self.date("2026-11-01 06:10:00", in: .gmt), in: newYork)
        #expect(next.map { Self.text($0, in: newYork) } == "2026-11-01 02:00:00 -0500")
    }

    @Test func shanghaiIsUTCPlusEightAndItsDaylightSavingOf1991() throws {
        let zone = "Asia/Shanghai"
        // 08:00 in Shanghai is midnight UTC.
        let schedule = try CronSchedule("0 0 8 * * ?")
        let shanghai = TimeZone(identifier: zone)!
        let next = schedule.nextFire(after: Self.date("2026-11-27 05:28:37", in: .gmt), in: shanghai)
        #expect(next == Self.date("2026-11-28 00:00:00", in: .gmt))
        // China kept summer time until 1991: 02:00 became 03:00 on April 14th, 02:00 went back
        // to 01:00 on September 15th.
        #expect(try fires("0 30 2 * * ?", after: "1991-04-13 00:00:00", in: zone, count: 2) == [
            "1991-04-13 02:30:00 +0800", "1991-04-15 02:30:00 +0900",
        ])
        #expect(try fires("0 30 1 * * ?", after: "1991-09-14 12:00:00", in: zone, count: 2) == [
            "1991-09-15 01:30:00 +0900", "1991-09-16 01:30:00 +0800",
        ])
    }

    @Test func aTimeThatNeverExistsInAZoneNeverFiresThere() throws {
        // Since 2007 New York's clocks skip 02:30 on March's second Sunday every year.
        let schedule = try CronSchedule("0 30 2 ? MAR 1#2")
        #expect(schedule.nextFire(after: Self.date("2026-01-01 00:00:00", in: .gmt), in: TimeZone(identifier: "America/New_York")!) == nil)
        #expect(schedule.nextFire(after: Self.date("2026-01-01 00:00:00", in: .gmt), in: .gmt) == Self.date("2026-03-08 02:30:00", in: .gmt))
    }

    @Test func intervalsFireOnWholeMultiplesSinceTheEpoch() throws {
        let minute = try TimerSchedule.interval(seconds: 60)
        #expect(times(minute, after: "2026-11-27 13:28:37", in: "Asia/Shanghai", count: 2) == [
            "2026-11-27 13:29:00 +0800", "2026-11-27 13:30:00 +0800",
        ])
        let seven = try TimerSchedule.interval(seconds: 7)
        #expect(seven.nextFire(after: Date(timeIntervalSince1970: 100), in: .gmt) == Date(timeIntervalSince1970: 105))
        #expect(seven.nextFire(after: Date(timeIntervalSince1970: 105), in: .gmt) == Date(timeIntervalSince1970: 112))
        #expect(seven.text == "every 7s")
        for bad in [0, -1, 31_622_401, Int.max] {
            #expect(throws: CloudQueueError.self) { try TimerSchedule.interval(seconds: bad) }
        }
        // Not through `interval`: a value the enum was given directly still never divides by zero.
        #expect(TimerSchedule.every(seconds: 0).nextFire(after: .now, in: .gmt) == nil)
    }

    @Test func badExpressionsAreRefusedWithTheirReason() {
        let cases: [(String, String)] = [
            ("", "expected 6 fields (second minute hour day-of-month month day-of-week) and an optional year, got 0"),
            ("0 0 0 * *", "expected 6 fields (second minute hour day-of-month month day-of-week) and an optional year, got 5"),
            ("0 0 0 1 1 ? 2030 x", "expected 6 fields (second minute hour day-of-month month day-of-week) and an optional year, got 8"),
            ("60 * * * * ?", "second field: 60 is out of range 0-59"),
            ("0 60 * * * ?", "minute field: 60 is out of range 0-59"),
            ("0 0 24 * * ?", "hour field: 24 is out of range 0-23"),
            ("0 0 0 32 * ?", "day-of-month field: 32 is out of range 1-31"),
            ("0 0 0 0 * ?", "day-of-month field: 0 is out of range 1-31"),
            ("0 0 0 1 13 ?", "month field: 13 is out of range 1-12 or JAN-DEC"),
            ("0 0 0 1 FOO ?", "month field: 'FOO' is not a value (1-12 or JAN-DEC)"),
            ("0 0 0 ? * 8", "day-of-week field: 8 is out of range 1-7 or SUN-SAT"),
            ("0 0 0 ? * 0", "day-of-week field: 0 is out of range 1-7 or SUN-SAT"),
            ("0 0 0 1 1 ? 1969", "year field: 1969 is out of range 1970-2099"),
            ("0 0 0 ? * ?", "'?' may stand in only one of the day-of-month and day-of-week fields"),
            ("0 0 0 1 * MON", "give either a day-of-month or a day-of-week, with '?' in the other field (as Quartz requires)"),
            ("? 0 0 1 * ?", "second field: '?' is only for day-of-month or day-of-week"),
            ("0 0 0 1 1 ? ?", "year field: '?' is only for day-of-month or day-of-week"),
            ("0 0 0 1? * ?", "'?' stands alone in its field, not in '1?' (field 4)"),
            ("*/0 * * * * ?", "second field: the step in '*/0' must be a number from 1 to 60"),
            ("0 0/61 * * * ?", "minute field: the step in '0/61' must be a number from 1 to 60"),
            ("0 0 1/2/3 * * ?", "hour field: '1/2/3' has more than one '/'"),
            ("0 0 1-2-3 * * ?", "hour field: '1-2-3' is not a range"),
            ("0 0 0 1,,2 * ?", "day-of-month field: a list has an empty item"),
            ("0 0 -1 * * ?", "hour field: '' is not a value (0-23)"),
            ("0 0 0 L,1 * ?", "day-of-month field: 'L,1': L, LW, L-n and nW stand alone in their field"),
            ("0 0 0 L-31 * ?", "day-of-month field: 'L-31': L-n takes n from 0 to 30"),
            ("0 0 0 ? * 2#6", "day-of-week field: '2#6': in d#n, n is from 1 to 5"),
            ("0 0 0 ? * 1,2#1", "day-of-week field: '1,2#1': dL and d#n stand alone in their field"),
            ("0 0 0 30 2 ?", "no date matches it (such as February 30th), so it would never fire"),
            ("0 0 0 31W 4 ?", "no date matches it (such as February 30th), so it would never fire"),
            ("0 0 0 29 2 ? 2027", "no date matches it (such as February 30th), so it would never fire"),
            ("0\u{0} 0 0 * * ?", "only ASCII characters are allowed"),
            ("０ 0 0 * * ?", "only ASCII characters are allowed"),
            (String(repeating: "0", count: 201), "longer than 200 characters"),
            ("0 0 0 1 1 ? 99999", "year field: '99999' is not a value (1970-2099)"),
            ("0 0 0 1 1 ? 2030/999", "year field: the step in '2030/999' must be a number from 1 to 130"),
            ("\(Array(0...60).map(String.init).joined(separator: ",")) * * * * ?", "second field: a list may have at most 60 items"),
        ]
        for (expression, reason) in cases {
            #expect(refusal(expression) == "Invalid cron expression: \(reason)", "\(expression)")
        }
    }

    @Test func longestAcceptedListAndWhitespace() throws {
        let everySecond = (0...59).map(String.init).joined(separator: ",")
        #expect(try fires("\(everySecond) * * * * ?", after: "2026-11-27 05:28:37", count: 2) == [
            "2026-11-27 05:28:38 +0000", "2026-11-27 05:28:39 +0000",
        ])
        // Tabs and repeated spaces separate fields.
        #expect(try fires("0\t0  12 * *   ?", after: "2026-11-27 05:28:37", count: 1) == ["2026-11-27 12:00:00 +0000"])
    }
}
