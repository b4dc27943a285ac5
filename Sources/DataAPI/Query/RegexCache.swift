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

    /// Whether `text` contains a match.
    func matches(_ pattern: String, options: String, _ text: String) -> Bool {
        guard let regex = regex(pattern, options: options) else { return false }
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
