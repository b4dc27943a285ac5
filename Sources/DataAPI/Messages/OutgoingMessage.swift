public import JSON

/// A message the host sends a user: a verification code by SMS, or a link by email.
public struct OutgoingMessage: Sendable, Hashable, Codable {
    /// How a message travels.
    public enum Channel: String, Sendable, Hashable, Codable {
        /// A text message to a mobile phone number.
        case sms
        /// An email.
        case email
    }

    /// SMS or email.
    public var channel: Channel
    /// The phone number or email address.
    public var to: String
    /// What the message is for (a `VerificationCodes.Purpose` name: `verifyPhone`, `login`, ...).
    public var purpose: String
    /// The code the message carries, for an SMS.
    public var code: String?
    /// The link the message carries, for an email.
    public var link: String?
    /// The text to deliver, ready to send (an email's plain-text body).
    public var text: String
    /// The template the message was made from: the SMS template a `requestSmsCode` named
    /// (LeanCloud's `template`), or the kind of an email (`verifyEmail`, `signup`,
    /// `resetPassword`: the mail templates' names).
    public var template: String?
    /// The SMS signature's name (LeanCloud's `sign`); nil for the app's name.
    public var sign: String?
    /// How an SMS code reaches the phone: `sms`, or `voice` (read out in a call).
    public var smsType: String?
    /// The values the message's template may place: the SMS template's variables, an email's
    /// `appname`, `username`, `email`, `link` and `hours`.
    public var variables: [String: String] = [:]
    /// An email's subject, made from its template (`MailTemplates`).
    public var subject: String?
    /// An email's HTML body, made from its template.
    public var html: String?

    /// Creates a message.
    public init(channel: Channel, to: String, purpose: String, code: String? = nil, link: String? = nil, text: String) {
        self.channel = channel
        self.to = to
        self.purpose = purpose
        self.code = code
        self.link = link
        self.text = text
    }

    /// The message as a stored or posted JSON object (the code under `smsCode`, as the SDKs
    /// name it: `code` is a name LeanCloud reserves); `template`, `sign`, `smsType`,
    /// `variables`, `subject` and `html` when set.
    public var json: JSONValue {
        var json: [String: JSONValue] = [
            "channel": .string(channel.rawValue), "to": .string(to), "purpose": .string(purpose), "text": .string(text),
        ]
        if let code { json["smsCode"] = .string(code) }
        if let link { json["link"] = .string(link) }
        let optional: [(String, String?)] = [
            ("template", template), ("sign", sign), ("smsType", smsType), ("subject", subject), ("html", html),
        ]
        for (key, value) in optional { if let value { json[key] = .string(value) } }
        if !variables.isEmpty { json["variables"] = .object(variables.mapValues { .string($0) }) }
        return .object(json)
    }
}

/// Delivers the host's messages (SMS codes, email links). The default keeps them in the outbox;
/// the server can POST them to a webhook that talks to a real SMS or email provider.
public protocol MessageSender: Sendable {
    /// Delivers one message, or throws (the client then gets 602).
    func send(_ message: OutgoingMessage) async throws
}
