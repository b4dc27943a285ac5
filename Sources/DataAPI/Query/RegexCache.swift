import Foundation
import Synchronization

/// Compiled regular expressions by pattern and options, shared by query parsing (to reject a bad
/// pattern with 102) and evaluation (SQLite's `fh_regexp` and the in-memory evaluator).
final class RegexCache: Sendable {
    static let shared = RegexCache()

    private let entries = Mutex<[String: NSRegularExpression]>([:])

    /// The expression for a pattern with `imsx` options, or nil when the pattern is invalid.
    func regex(_ pattern: String, options: String) -> NSRegularExpression? {
        let key = options + "\u{0}" + pattern
        if let cached = entries.withLock({ $0[key] }) { return cached }
        var flags: NSRegularExpression.Options = []
        if options.contains("i") { flags.insert(.caseInsensitive) }
        if options.contains("m") { flags.insert(.anchorsMatchLines) }
        if options.contains("s") { flags.insert(.dotMatchesLineSeparators) }
        if options.contains("x") { flags.insert(.allowCommentsAndWhitespace) }
        guard let regex = try? NSRegularExpression(pattern: pattern, options: flags) else { return nil }
        entries.withLock { cache in
            if cache.count > 1000 { cache.removeAll() }
            cache[key] = regex
        }
        return regex
    }

    /// The longest one match may take. A pattern with nested repetition (`(a+)+$`) backtracks
    /// for ever on some texts; legitimate ones take microseconds on the 128 KB an object holds.
    static let matchBudget: Duration = .milliseconds(50)

    /// When the regular expressions of the current query must be done: the deadline of its
    /// statement (`StatementBudget`, set by the engine around it), so a pattern that is merely
    /// slow on every row can't hold a reader past it either.
    @TaskLocal static var queryDeadline: ContinuousClock.Instant?

    /// What a query whose `$regex` ran out of time answers.
    static let timeout = DataAPIError(
        .invalidQuery,
        "$regex took too long to evaluate: simplify the pattern (nested repetition such as (a+)+ backtracks without end).")

    /// Whether `text` contains a match.
    ///
    /// - Throws: `timeout` past `matchBudget`, or past the query's deadline.
    func matches(_ pattern: String, options: String, _ text: String) throws(DataAPIError) -> Bool {
        guard let regex = regex(pattern, options: options) else { return false }
        let own = ContinuousClock.now + Self.matchBudget
        let deadline = min(own, Self.queryDeadline ?? own)
        var found = false
        var expired = false
        // `reportProgress` calls back during a long match attempt too, which is what lets it stop.
        regex.enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) {
            result, _, stop in
            if result != nil {
                found = true
                stop.pointee = true
            } else if ContinuousClock.now > deadline {
                expired = true
                stop.pointee = true
            }
        }
        if expired {
            if let query = Self.queryDeadline, query < own { RegexBudgetTally.current?.record() }
            throw Self.timeout
        }
        return found
    }

    /// `matches`, with a match that ran out of time counted as none (for the reference evaluator).
    func matchesWithinBudget(_ pattern: String, options: String, _ text: String) -> Bool {
        (try? matches(pattern, options: options, text)) ?? false
    }
}
