import Foundation

/// Writes a mail as RFC 5322 and MIME want it: `multipart/alternative` with a UTF-8 plain-text
/// part and an HTML part, each in base64 (so no body line is long or starts a command), and
/// headers whose every value is either checked ASCII (addresses) or an RFC 2047 encoded word
/// (names, subjects): nothing a user's data holds can end a header or start another.
struct MIMEMessage {
    let from: MailAddress
    let fromName: String?
    let to: MailAddress
    let content: MailContent
    let date: Date
    /// Random hex: the Message-ID's and the boundary's.
    let token: String

    /// The whole message, CRLF lines.
    var bytes: [UInt8] {
        var headers = [
            "From: " + (fromName.map { Self.encodedWords(Self.oneLine($0)) + "\r\n " } ?? "") + "<\(from)>",
            "To: <\(to)>",
            "Subject: " + Self.subject(content.subject),
            "Date: " + Self.date(date),
            "Message-ID: <\(token)@\(from.domain)>",
            "MIME-Version: 1.0",
        ]
        var body = ""
        if let html = content.html {
            let boundary = "=_alt_\(token)"
            headers.append("Content-Type: multipart/alternative;\r\n boundary=\"\(boundary)\"")
            body += "This is a message in MIME format.\r\n"
            for (type, text) in [("plain", content.text), ("html", html)] {
                body += "--\(boundary)\r\n" + Self.partHeaders(type) + "\r\n" + Base64.lines(Array(text.utf8))
            }
            body += "--\(boundary)--\r\n"
        } else {
            headers.append(Self.partHeaders("plain"))
            body = Base64.lines(Array(content.text.utf8))
        }
        return Array((headers.joined(separator: "\r\n") + "\r\n\r\n" + body).utf8)
    }

    private static func partHeaders(_ subtype: String) -> String {
        "Content-Type: text/\(subtype); charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n"
    }

    /// A subject: as it is when it is short printable ASCII with nothing an encoded word could
    /// be read from, else encoded words.
    static func subject(_ subject: String) -> String {
        let line = oneLine(subject)
        let plain = line.utf8.count <= 70 && line.utf8.allSatisfy { (0x20...0x7E).contains($0) } && !line.contains("=?")
        return plain ? line : encodedWords(line)
    }

    /// Control characters (CR and LF among them) as spaces: a header value is one line.
    static func oneLine(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    /// RFC 2047 `=?UTF-8?B?...?=` words of 64 characters at most (a header's name and the
    /// first word stay within 78), split between code points (never inside one's UTF-8 bytes),
    /// folded onto continuation lines.
    static func encodedWords(_ text: String) -> String {
        var words: [[UInt8]] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            // 39 bytes make 52 base64 characters: 64 with the word's 12 of framing.
            if chunk.count + bytes.count > 39 {
                words.append(chunk)
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(chunk) }
        return words.map { "=?UTF-8?B?\(Base64.encode($0))?=" }.joined(separator: "\r\n ")
    }

    /// RFC 5322's date, in UTC: `Fri, 27 Nov 2026 08:30:00 +0000`.
    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
