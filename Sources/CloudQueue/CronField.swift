/// The values one field of a cron expression allows, as a bit set over the field's range.
struct CronValues: Hashable, Sendable {
    /// The smallest and largest value the field takes (0-59 for seconds, 1970-2099 for years).
    let range: ClosedRange<Int>
    private var words: [UInt64]

    /// No value yet.
    init(range: ClosedRange<Int>) {
        self.range = range
        words = Array(repeating: 0, count: range.count / 64 + 1)
    }

    /// Every value of the range.
    static func all(_ range: ClosedRange<Int>) -> CronValues {
        var values = CronValues(range: range)
        for value in range { values.insert(value) }
        return values
    }

    /// Whether `value` is allowed.
    func contains(_ value: Int) -> Bool {
        guard range.contains(value) else { return false }
        let bit = value - range.lowerBound
        return words[bit / 64] & (1 << UInt64(bit % 64)) != 0
    }

    /// Allows `value`, which is in the range.
    mutating func insert(_ value: Int) {
        let bit = value - range.lowerBound
        words[bit / 64] |= 1 << UInt64(bit % 64)
    }

    /// The allowed values from `lower` on, ascending.
    func values(from lower: Int) -> [Int] {
        Array(max(lower, range.lowerBound)...range.upperBound).filter(contains)
    }
}

/// What a field's text may hold: its range, its names (JAN-DEC, SUN-SAT) and what a person reads
/// in an error about it.
struct CronFieldSpec: Sendable {
    let name: String
    let range: ClosedRange<Int>
    /// Upper-case names, the first standing for `range.lowerBound`.
    let names: [String]

    static let second = CronFieldSpec(name: "second", range: 0...59, names: [])
    static let minute = CronFieldSpec(name: "minute", range: 0...59, names: [])
    static let hour = CronFieldSpec(name: "hour", range: 0...23, names: [])
    static let dayOfMonth = CronFieldSpec(name: "day-of-month", range: 1...31, names: [])
    static let month = CronFieldSpec(
        name: "month", range: 1...12,
        names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"])
    /// Quartz numbers days 1 = SUN ... 7 = SAT.
    static let dayOfWeek = CronFieldSpec(
        name: "day-of-week", range: 1...7, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"])
    /// Quartz's years.
    static let year = CronFieldSpec(name: "year", range: 1970...2099, names: [])

    /// A list of at most this many items: enough to name every second of a minute, and no more.
    static let maxListItems = 60

    /// How the range reads in an error: `1-7 (SUN-SAT)`.
    var rangeText: String {
        let numbers = "\(range.lowerBound)-\(range.upperBound)"
        guard let first = names.first, let last = names.last else { return numbers }
        return "\(numbers) or \(first)-\(last)"
    }

    /// A refusal naming this field.
    func error(_ reason: String) -> CronSyntaxError {
        CronSyntaxError(message: "\(name) field: \(reason)")
    }

    /// One value: a number in the range or one of the field's names.
    func value(_ text: Substring) throws(CronSyntaxError) -> Int {
        if let index = names.firstIndex(of: text.uppercased()) { return range.lowerBound + index }
        guard !text.isEmpty, text.count <= 4, text.allSatisfy(\.isASCIIDigit), let number = Int(text) else {
            throw error("'\(text)' is not a value (\(rangeText))")
        }
        guard range.contains(number) else { throw error("\(number) is out of range \(rangeText)") }
        return number
    }

    /// A list of `*`, values, ranges `a-b` (wrapping past the end when `a > b`, as Quartz does),
    /// and steps `*/n`, `a/n`, `a-b/n`.
    func values(_ text: Substring) throws(CronSyntaxError) -> CronValues {
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= Self.maxListItems else {
            throw error("a list may have at most \(Self.maxListItems) items")
        }
        var values = CronValues(range: range)
        for item in items {
            guard !item.isEmpty else { throw error("a list has an empty item") }
            let parts = item.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw error("'\(item)' has more than one '/'") }
            let (first, last) = try bounds(parts[0], stepped: parts.count == 2)
            let span = range.count
            var step = 1
            if parts.count == 2 {
                guard parts[1].count <= 4, parts[1].allSatisfy(\.isASCIIDigit), let number = Int(parts[1]),
                    (1...span).contains(number)
                else { throw error("the step in '\(item)' must be a number from 1 to \(span)") }
                step = number
            }
            // Walks from `first` to `last`, past the range's end and round to its start when the
            // range wraps.
            let count = (last - first + span) % span + 1
            for offset in stride(from: 0, to: count, by: step) {
                values.insert(range.lowerBound + (first - range.lowerBound + offset) % span)
            }
        }
        return values
    }

    /// The first and last value of an item's range part: `*`, `a-b`, or `a` (which runs to the
    /// range's end when a step follows, as `a/n` means in Quartz).
    private func bounds(_ text: Substring, stepped: Bool) throws(CronSyntaxError) -> (Int, Int) {
        if text == "*" { return (range.lowerBound, range.upperBound) }
        let ends = text.split(separator: "-", omittingEmptySubsequences: false)
        switch ends.count {
        case 1:
            let value = try value(ends[0])
            return (value, stepped ? range.upperBound : value)
        case 2: return (try value(ends[0]), try value(ends[1]))
        default: throw error("'\(text)' is not a range")
        }
    }
}

/// Why a cron expression was refused (the public initializer turns it into a `CloudQueueError`).
struct CronSyntaxError: Error, Sendable {
    let message: String
}

extension Character {
    /// Whether this is one of 0-9 (not any Unicode digit).
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
