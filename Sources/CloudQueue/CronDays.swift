/// Which days of a month a cron expression fires on: its day-of-month and day-of-week fields,
/// of which Quartz lets only one choose (the other is `?`).
enum CronDays: Hashable, Sendable {
    /// Every day (`?` in one field and `*` in the other, or `*` in both).
    case every
    /// Listed days of the month.
    case monthDays(CronValues)
    /// `L` / `L-n`: the last day of the month, or n days before it.
    case lastDay(offset: Int)
    /// `nW`: the weekday (Monday-Friday) nearest the n-th, within the same month; none in a
    /// month without an n-th.
    case nearestWeekday(Int)
    /// `LW`: the last weekday of the month.
    case lastWeekday
    /// Listed days of the week (1 = SUN ... 7 = SAT).
    case weekDays(CronValues)
    /// `nL`: the last such day of the week in the month (`6L`: the last Friday).
    case lastWeekDay(Int)
    /// `n#k`: the k-th such day of the week in the month (`2#1`: the first Monday).
    case nthWeekDay(Int, Int)

    /// The rule of the two fields' texts.
    init(dayOfMonth: Substring, dayOfWeek: Substring) throws(CronSyntaxError) {
        switch (dayOfMonth == "?", dayOfWeek == "?") {
        case (true, true):
            throw CronSyntaxError(message: "'?' may stand in only one of the day-of-month and day-of-week fields")
        case (false, true):
            self = try Self.monthRule(dayOfMonth)
        case (true, false):
            self = try Self.weekRule(dayOfWeek)
        case (false, false):
            // `*` in one of them reads as `?` there (Quartz refuses it; Spring and Unix cron take it).
            if dayOfWeek == "*" {
                self = try Self.monthRule(dayOfMonth)
            } else if dayOfMonth == "*" {
                self = try Self.weekRule(dayOfWeek)
            } else {
                throw CronSyntaxError(
                    message: "give either a day-of-month or a day-of-week, with '?' in the other field (as Quartz requires)")
            }
        }
    }

    private static func monthRule(_ text: Substring) throws(CronSyntaxError) -> CronDays {
        let spec = CronFieldSpec.dayOfMonth
        let upper = text.uppercased()
        if text == "*" { return .every }
        if upper == "L" { return .lastDay(offset: 0) }
        if upper == "LW" { return .lastWeekday }
        if upper.hasPrefix("L-") {
            let offset = upper.dropFirst(2)
            guard offset.count <= 2, offset.allSatisfy(\.isASCIIDigit), let days = Int(offset), days <= 30 else {
                throw spec.error("'\(text)': L-n takes n from 0 to 30")
            }
            return .lastDay(offset: days)
        }
        if upper.hasSuffix("W") { return .nearestWeekday(try spec.value(text.dropLast())) }
        if upper.contains("L") || upper.contains("W") || upper.contains("#") {
            throw spec.error("'\(text)': L, LW, L-n and nW stand alone in their field")
        }
        return .monthDays(try spec.values(text))
    }

    private static func weekRule(_ text: Substring) throws(CronSyntaxError) -> CronDays {
        let spec = CronFieldSpec.dayOfWeek
        let upper = text.uppercased()
        if text == "*" { return .every }
        // A lone L is the last day of the week, Saturday (Quartz).
        if upper == "L" { return .weekDays(try spec.values("7")) }
        if upper.contains(","), upper.contains("#") || upper.contains("L") {
            throw spec.error("'\(text)': dL and d#n stand alone in their field")
        }
        if upper.hasSuffix("L") { return .lastWeekDay(try spec.value(text.dropLast())) }
        let parts = text.split(separator: "#", omittingEmptySubsequences: false)
        if parts.count == 2 {
            let day = try spec.value(parts[0])
            guard parts[1].count == 1, let nth = Int(parts[1]), (1...5).contains(nth) else {
                throw spec.error("'\(text)': in d#n, n is from 1 to 5")
            }
            return .nthWeekDay(day, nth)
        }
        return .weekDays(try spec.values(text))
    }

    /// Whether the rule fires on that date of the proleptic Gregorian calendar.
    func contains(year: Int, month: Int, day: Int) -> Bool {
        let length = CivilDate.days(inMonth: month, year: year)
        switch self {
        case .every: return true
        case .monthDays(let days): return days.contains(day)
        case .lastDay(let offset): return day == length - offset
        case .lastWeekday:
            return day == Self.weekday(nearest: length, year: year, month: month, length: length)
        case .nearestWeekday(let target):
            return target <= length && day == Self.weekday(nearest: target, year: year, month: month, length: length)
        case .weekDays(let days): return days.contains(CivilDate.weekday(year: year, month: month, day: day))
        case .lastWeekDay(let weekday):
            return day + 7 > length && CivilDate.weekday(year: year, month: month, day: day) == weekday
        case .nthWeekDay(let weekday, let nth):
            return (day - 1) / 7 + 1 == nth && CivilDate.weekday(year: year, month: month, day: day) == weekday
        }
    }

    /// The Monday-Friday nearest `target` in its month: a Saturday moves to Friday (or to Monday
    /// the 3rd when it is the 1st), a Sunday to Monday (or to Friday when it is the month's last).
    private static func weekday(nearest target: Int, year: Int, month: Int, length: Int) -> Int {
        switch CivilDate.weekday(year: year, month: month, day: target) {
        case 7: return target == 1 ? 3 : target - 1
        case 1: return target == length ? target - 2 : target + 1
        default: return target
        }
    }
}

/// Calendar arithmetic on dates (no time, no zone) of the proleptic Gregorian calendar, for
/// walking days without asking Foundation for each.
enum CivilDate {
    /// Whether `year` has a February 29th.
    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// 28 to 31.
    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Quartz's day of the week: 1 = Sunday ... 7 = Saturday.
    static func weekday(year: Int, month: Int, day: Int) -> Int {
        // Days since 1970-01-01 (a Thursday), counting years from March so February's length
        // comes last.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        // Thursday is 5.
        return ((days % 7 + 7) % 7 + 4) % 7 + 1
    }
}
