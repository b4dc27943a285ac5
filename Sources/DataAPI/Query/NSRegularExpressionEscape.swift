import Foundation

/// Escaping of literal text for use inside a regular expression.
enum NSRegularExpressionEscape {
    static func escape(_ text: String) -> String {
        NSRegularExpression.escapedPattern(for: text)
    }
}
