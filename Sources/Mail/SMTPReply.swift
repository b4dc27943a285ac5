import NIOCore

/// One reply of an SMTP server: its code and the text of each of its lines.
struct SMTPReply: Sendable, Hashable {
    /// The three-digit code (250, 354, 451, ...).
    let code: Int
    /// The text after the code on each line (an EHLO reply's extensions, one a line).
    let lines: [String]
    /// Whether more bytes had come when the reply ended (none may follow STARTTLS's 220).
    var followedByBytes = false

    /// 2xx and 3xx: the command went through.
    var isPositive: Bool { (200..<400).contains(code) }

    /// The first line, with its code, cut for a message.
    var summary: String { "\(code) \(lines.first?.prefix(200) ?? "")" }
}

/// Cuts the server's bytes into replies, bounded: a line longer than `maxLineLength` bytes or
/// a reply of more than `maxLines` lines fails the connection, so a hostile or broken server
/// can't make the client buffer without end.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply

    /// RFC 5321 allows 512 bytes a reply line; servers' texts run longer now and then.
    static let maxLineLength = 2048
    /// An EHLO reply lists a few dozen extensions at most.
    static let maxLines = 64

    private var pending: [String] = []
    private var pendingCode: Int?

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let end = view.prefix(Self.maxLineLength + 1).firstIndex(of: UInt8(ascii: "\n")) else {
            if view.count > Self.maxLineLength {
                throw MailError(.permanent, "The SMTP server sent a reply line longer than \(Self.maxLineLength) bytes.")
            }
            return .needMoreData
        }
        var line = Array(view[view.startIndex..<end])
        buffer.moveReaderIndex(forwardBy: end - view.startIndex + 1)
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let digits = line.prefix(3)
        guard digits.count == 3, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            line.count == 3 || line[3] == UInt8(ascii: " ") || line[3] == UInt8(ascii: "-"),
            let code = Int(String(decoding: digits, as: UTF8.self)), pendingCode == nil || pendingCode == code
        else {
            throw MailError(.permanent, "The SMTP server sent a malformed reply.")
        }
        let text = line.count > 4 ? String(decoding: line[4...], as: UTF8.self) : ""
        pending.append(text)
        if line.count > 3, line[3] == UInt8(ascii: "-") {
            guard pending.count < Self.maxLines else {
                throw MailError(.permanent, "The SMTP server sent a reply of more than \(Self.maxLines) lines.")
            }
            pendingCode = code
            return .continue
        }
        let reply = SMTPReply(code: code, lines: pending, followedByBytes: buffer.readableBytes > 0)
        context.fireChannelRead(wrapInboundOut(reply))
        pending = []
        pendingCode = nil
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue, buffer.readableBytes > 0 {}
        return .needMoreData
    }
}
