import JSON

/// The bounds every leaderboard input is checked against, and the checks: names, member ids,
/// values and counts are refused with a clear error before anything is read or written.
public enum LeaderboardInput {
    /// The longest statistic name.
    public static let maxNameLength = 64
    /// The longest member id (an objectId or an entity string).
    public static let maxMemberLength = 128
    /// The most statistics one update names.
    public static let maxStatisticsPerUpdate = 50
    /// The most statistic names one read names (`statistics=a,b`, `includeStatistics`).
    public static let maxNamesPerRead = 20
    /// The most rankings one page holds (`limit`, `maxResultsCount`); LeanCloud's default is 20.
    public static let maxLimit = 200
    /// The rankings a page holds when the request names no limit.
    public static let defaultLimit = 20
    /// The most rankings a page may skip.
    public static let maxSkip = 100_000
    /// The most members one batch read names (LeanCloud's 200).
    public static let maxBatchIds = 200
    /// The most user or object keys a ranking may select or include.
    public static let maxKeys = 20
    /// The largest statistic value's magnitude: integers up to it are exact as doubles.
    public static let maxValue = 9_007_199_254_740_991.0

    /// A statistic name or an entity: ASCII letters, digits and `_`, starting with a letter or a
    /// digit, as LeanCloud requires.
    static func isValidName(_ text: String, maxLength: Int) -> Bool {
        guard (1...maxLength).contains(text.utf8.count), let first = text.utf8.first, isAlphanumeric(first) else { return false }
        return text.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Refuses a statistic name LeanCloud wouldn't take.
    public static func checkName(_ name: String) throws(LeaderboardError) {
        guard isValidName(name, maxLength: maxNameLength) else {
            throw .badRequest(
                "statisticName must be 1 to \(maxNameLength) letters, digits or underscores, starting with a letter or digit.")
        }
    }

    /// Refuses a member id: an entity as a name is, an objectId as letters, digits, `_` and `-`.
    public static func checkMember(_ id: String, kind: MemberKind) throws(LeaderboardError) {
        let valid: Bool
        if kind == .entity {
            valid = isValidName(id, maxLength: maxMemberLength)
        } else {
            valid = (1...maxMemberLength).contains(id.utf8.count)
                && id.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
        }
        guard valid else { throw .badRequest("Invalid \(kind.key) id: \(kind == .entity ? "an entity" : "an objectId") is expected.") }
    }

    /// A statistic value: a finite number within `maxValue`.
    static func value(_ json: JSONValue?, of name: String) throws(LeaderboardError) -> Double {
        guard let json, json.isNumber, let value = json.doubleValue, value.isFinite, abs(value) <= maxValue else {
            throw .badRequest("statisticValue of \(name.prefix(maxNameLength)) must be a number within ±\(Int64(maxValue)).")
        }
        return value
    }

    /// A comma-separated list of statistic names, each checked, at most `maxNamesPerRead`.
    public static func names(_ list: String?) throws(LeaderboardError) -> [String]? {
        guard let list, !list.isEmpty else { return nil }
        let names = list.split(separator: ",", omittingEmptySubsequences: true).map(String.init)
        guard names.count <= maxNamesPerRead else { throw .badRequest("At most \(maxNamesPerRead) statistics may be named.") }
        for name in names { try checkName(name) }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// A non-negative integer parameter at most `max`; nil when absent.
    public static func integer(_ text: String?, _ name: String, max: Int) throws(LeaderboardError) -> Int? {
        guard let text, !text.isEmpty else { return nil }
        guard let value = Int(text), (0...max).contains(value) else { throw .badRequest("\(name) must be an integer from 0 to \(max).") }
        return value
    }

    /// A number as answers carry it: an integer when it is one.
    static func json(_ value: Double) -> JSONValue {
        if value.rounded() == value, abs(value) <= maxValue { return .int(Int64(value)) }
        return .double(value)
    }
}
