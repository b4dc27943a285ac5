/// An email address the host writes into an SMTP command or a header: ASCII without spaces,
/// control characters or the characters that delimit addresses and commands, so a value from
/// a user's data (a signup's `email`) can't end a command or start another
/// (`a@b.c>\r\nRCPT TO:<victim@...`).
public struct MailAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address as written: `local@domain`.
    public let value: String

    /// Checks an address: 3 to 254 bytes, one `@`, a local part of at most 64 printable ASCII
    /// characters other than `<>()[]\,;:"` and spaces, a domain of letters, digits, `-` and dots.
    ///
    /// - Throws: `MailError` of kind `invalidInput`.
    public init(_ text: String) throws(MailError) {
        let invalid = MailError(.invalidInput, "Invalid email address.")
        let bytes = Array(text.utf8)
        guard (3...254).contains(bytes.count) else { throw invalid }
        let parts = bytes.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false)
        guard parts.count == 2, (1...64).contains(parts[0].count), !parts[1].isEmpty else { throw invalid }
        let forbidden = Set("<>()[]\\,;:\" ".utf8)
        guard parts[0].allSatisfy({ (0x21...0x7E).contains($0) && !forbidden.contains($0) }) else { throw invalid }
        let domain = parts[1]
        let labelByte: (UInt8) -> Bool = {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                || $0 == UInt8(ascii: "-")
        }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.allSatisfy({ (1...63).contains($0.count) && $0.allSatisfy(labelByte) }) else { throw invalid }
        value = text
    }

    /// The part after the `@`.
    public var domain: Substring { value[value.index(after: value.firstIndex(of: "@")!)...] }

    public var description: String { value }
}
