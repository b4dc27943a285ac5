public import DataAPI
public import Foundation
public import Logging

/// Delivers email through an SMTP server (`SMTPSettings`): the message's subject, text and
/// HTML (`MailTemplates` made them) as one MIME mail. A failed attempt that may pass later (no
/// connection, a timeout, a 4xx reply) is tried again after a back-off, up to the settings'
/// attempts; then, or at once for a permanent failure (a 5xx reply, TLS, login), the request
/// that asked for the mail is answered 602, as a failed SMS is. An address that can't be
/// written safely is answered 125 without connecting.
public struct SMTPSender: MessageSender {
    /// The server and the bounds of each attempt.
    public let settings: SMTPSettings
    /// Where failed attempts are logged (never with a password or a body).
    public let logger: Logger
    /// Waits between attempts; tests give one that records the waits and returns at once.
    public let sleep: @Sendable (Duration) async throws -> Void
    /// The clock the `Date` header is read from.
    public let now: @Sendable () -> Date

    /// Creates the sender.
    public init(
        settings: SMTPSettings, logger: Logger, sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.settings = settings
        self.logger = logger
        self.sleep = sleep
        self.now = now
    }

    public func send(_ message: OutgoingMessage) async throws {
        guard message.channel == .email else {
            throw DataAPIError(.messageNotSent, "The SMTP sender carries email only.")
        }
        let recipient: MailAddress
        do {
            recipient = try MailAddress(message.to)
        } catch {
            throw DataAPIError(.invalidEmail, "Invalid email address.")
        }
        let content = MailContent(
            subject: message.subject ?? message.variables["appname"] ?? "Message", text: message.text, html: message.html)
        try await send(content, to: recipient, fromName: message.variables["appname"])
    }

    /// Sends `content` to `recipient`, trying again on transient failures.
    ///
    /// - Throws: `DataAPIError` 602 once every attempt failed or one failed for good.
    public func send(_ content: MailContent, to recipient: MailAddress, fromName: String? = nil) async throws {
        let token = (0..<4).map { _ in String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16) }.joined()
        let mime = MIMEMessage(
            from: settings.from, fromName: settings.fromName ?? fromName, to: recipient, content: content, date: now(), token: token)
        let bytes = mime.bytes
        var wait = settings.backoff
        for attempt in 1...max(1, settings.attempts) {
            do throws(MailError) {
                try await SMTPConnection(settings: settings).send(bytes, to: recipient)
                return
            } catch {
                logger.warning(
                    "Mail: attempt \(attempt) of \(settings.attempts) through \(settings.host):\(settings.port) failed: \(error.message)",
                    metadata: ["to": .string(recipient.value)])
                guard error.kind == .transient, attempt < settings.attempts else {
                    throw DataAPIError(.messageNotSent, "The email could not be sent: \(error.message)")
                }
            }
            try await sleep(wait)
            wait = wait * 2
        }
    }
}
