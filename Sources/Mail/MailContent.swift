import Foundation

/// What a mail says: a subject, a plain-text body and, usually, the same in HTML.
public struct MailContent: Sendable, Hashable {
    /// The subject line, as read (encoded when written).
    public var subject: String
    /// The plain-text body.
    public var text: String
    /// The HTML body; nil sends the text alone.
    public var html: String?

    /// Creates the content of a mail.
    public init(subject: String, text: String, html: String? = nil) {
        self.subject = subject
        self.text = text
        self.html = html
    }
}

/// Base64 as MIME and SMTP AUTH write it.
enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

    /// In lines of 76 characters, each ended by CRLF (RFC 2045 § 6.8).
    static func lines(_ bytes: [UInt8]) -> String {
        let text = Array(encode(bytes).utf8)
        return stride(from: 0, to: text.count, by: 76).map { String(decoding: text[$0..<min($0 + 76, text.count)], as: UTF8.self) + "\r\n" }
            .joined()
    }
}
