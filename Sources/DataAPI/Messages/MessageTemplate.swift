import Foundation

/// A message template an operator writes (SMS texts, mail subjects and bodies): literal text
/// with `{{name}}` and `{{{name}}}` placeholders, the Handlebars forms LeanCloud's SMS templates
/// use. Nothing else of Handlebars is read (no helpers, blocks or partials): a template can't
/// run anything, only place values.
public struct MessageTemplate: Sendable, Hashable {
    /// A piece of the template: text as written, or a variable's place.
    enum Piece: Sendable, Hashable {
        case text(String)
        case variable(String)
    }

    /// The largest template read, in UTF-8 bytes.
    public static let maxSize = 64 * 1024

    let pieces: [Piece]

    /// Reads a template; `{{` not followed by a name and `}}` is kept as text.
    public init(_ source: String) {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(source)
        while let open = rest.range(of: "{{") {
            text += rest[..<open.lowerBound]
            let triple = rest[open.upperBound...].hasPrefix("{")
            let nameStart = triple ? rest.index(after: open.upperBound) : open.upperBound
            let closing = triple ? "}}}" : "}}"
            if let close = rest[nameStart...].range(of: closing) {
                let name = rest[nameStart..<close.lowerBound].trimmingCharacters(in: .whitespaces)
                if Self.isVariableName(name) {
                    if !text.isEmpty { pieces.append(.text(text)) }
                    text = ""
                    pieces.append(.variable(name))
                    rest = rest[close.upperBound...]
                    continue
                }
            }
            text += rest[open]
            rest = rest[open.upperBound...]
        }
        text += rest
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    /// The variables the template names.
    public var variableNames: Set<String> {
        Set(pieces.compactMap { if case .variable(let name) = $0 { name } else { nil } })
    }

    /// The text with each variable's value, passed through `escape` (HTML escaping for an HTML
    /// body; none for plain text).
    ///
    /// - Throws: `MissingVariable` for a variable `values` lacks.
    public func render(_ values: [String: String], escape: (String) -> String = { $0 }) throws(MissingVariable) -> String {
        var result = ""
        for piece in pieces {
            switch piece {
            case .text(let text): result += text
            case .variable(let name):
                guard let value = values[name] else { throw MissingVariable(name: name) }
                result += escape(value)
            }
        }
        return result
    }

    /// A variable the template names and the values don't hold.
    public struct MissingVariable: Error, Sendable {
        /// The variable's name.
        public let name: String
    }

    /// A letter or `_`, then letters, digits or `_`: at most 64 characters.
    public static func isVariableName(_ name: some StringProtocol) -> Bool {
        guard let first = name.unicodeScalars.first, name.utf8.count <= 64 else { return false }
        let isLetter: (Unicode.Scalar) -> Bool = { $0.isASCII && (("a"..."z").contains($0) || ("A"..."Z").contains($0) || $0 == "_") }
        return isLetter(first) && name.unicodeScalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }

    /// `&`, `<`, `>`, `"` and `'` as HTML entities: a value placed in an HTML body or attribute
    /// stays text.
    public static func escapeHTML(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
