/// Conversions between instants (milliseconds since 1970, UTC) and the ISO-8601 text the SDKs use,
/// always written as `2017-11-11T07:19:15.549Z` so that stored dates compare correctly as text.
public enum ISODate {
    /// The canonical text of an instant: `yyyy-MM-ddTHH:mm:ss.SSSZ`.
    public static func string(fromMilliseconds milliseconds: Int64) -> String {
        let (days, msOfDay) = floorDivide(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        let hour = msOfDay / 3_600_000
        let minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60
        let ms = msOfDay % 1000
        var out = ""
        out.reserveCapacity(24)
        out += pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        out += "T" + pad(hour, 2) + ":" + pad(minute, 2) + ":" + pad(second, 2) + "." + pad(ms, 3) + "Z"
        return out
    }

    /// The instant written in ISO-8601 text (`Z` or `±HH:MM` offsets, optional fraction), or nil.
    public static func milliseconds(from text: String) -> Int64? {
        let b = Array(text.utf8)
        var i = 0
        func number(_ count: Int) -> Int64? {
            guard i + count <= b.count else { return nil }
            var value: Int64 = 0
            for k in 0..<count {
                let c = b[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                value = value * 10 + Int64(c - 48)
            }
            i += count
            return value
        }
        func expect(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year)
        else { return nil }
        var hour: Int64 = 0
        var minute: Int64 = 0
        var second: Int64 = 0
        var ms: Int64 = 0
        var offset: Int64 = 0
        if i < b.count {
            guard expect("T") || expect(" "), let h = number(2), expect(":"), let m = number(2) else { return nil }
            hour = h
            minute = m
            if expect(":") {
                guard let s = number(2) else { return nil }
                second = s
                if expect(".") {
                    var digits = 0
                    var fraction: Int64 = 0
                    while i < b.count, b[i] >= 48, b[i] <= 57 {
                        if digits < 3 { fraction = fraction * 10 + Int64(b[i] - 48) }
                        digits += 1
                        i += 1
                    }
                    guard digits > 0 else { return nil }
                    for _ in digits..<max(digits, 3) { fraction *= 10 }
                    ms = fraction
                }
            }
            guard hour < 24, minute < 60, second < 61 else { return nil }
            if expect("Z") || expect("z") {
            } else if i < b.count, b[i] == 43 || b[i] == 45 {
                let sign: Int64 = b[i] == 45 ? -1 : 1
                i += 1
                guard let oh = number(2), oh < 24 else { return nil }
                _ = expect(":")
                guard let om = number(2), om < 60 else { return nil }
                offset = sign * (oh * 60 + om) * 60_000
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        let days = days(fromCivil: year, month, day)
        let result = days * 86_400_000 + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms - offset
        // Canonical text has a four-digit year, so instants outside years 0000...9999 are refused.
        guard result >= minimum, result <= maximum else { return nil }
        return result
    }

    /// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
    private static let minimum: Int64 = -62_167_219_200_000
    private static let maximum: Int64 = 253_402_300_799_999

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The canonical text of the instant written in `text`, or nil when it is not a date.
    public static func normalized(_ text: String) -> String? {
        milliseconds(from: text).map(string(fromMilliseconds:))
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> (Int64, Int64) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    // Howard Hinnant's days-from-civil and civil-from-days algorithms (proleptic Gregorian).
    private static func days(fromCivil y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
