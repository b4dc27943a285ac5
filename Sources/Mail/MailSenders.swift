public import DataAPI

/// Gives each email of a known kind its subject, text and HTML from the templates, then hands
/// it on: to SMTP, or to the webhook or outbox, which then carry `subject` and `html` too.
public struct TemplatedMailSender: MessageSender {
    /// The operator's templates.
    public let templates: MailTemplates
    /// Where messages go next.
    public let next: any MessageSender

    /// Creates the sender.
    public init(templates: MailTemplates, next: any MessageSender) {
        self.templates = templates
        self.next = next
    }

    public func send(_ message: OutgoingMessage) async throws {
        var message = message
        if let content = templates.content(for: message) {
            message.subject = content.subject
            message.text = content.text
            message.html = content.html
        }
        try await next.send(message)
    }
}

/// Sends email one way and SMS another: SMTP carries email only, so SMS keep going to the
/// webhook or the outbox.
public struct ChannelSender: MessageSender {
    /// Where email goes.
    public let email: any MessageSender
    /// Where SMS go.
    public let sms: any MessageSender

    /// Creates the sender.
    public init(email: any MessageSender, sms: any MessageSender) {
        self.email = email
        self.sms = sms
    }

    public func send(_ message: OutgoingMessage) async throws {
        try await (message.channel == .email ? email : sms).send(message)
    }
}

/// The host's mail settings: an SMTP server (nil: email goes where SMS go, the webhook or the
/// outbox) and the templates' directory (nil: `templates/mail` in the data directory).
public struct MailOptions: Sendable {
    /// The SMTP server email is sent through.
    public var smtp: SMTPSettings?
    /// Where the mail templates are.
    public var templatesDirectory: String?

    /// No SMTP server; templates in the data directory.
    public init() {}
}
