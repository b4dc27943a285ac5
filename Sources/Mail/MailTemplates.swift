public import DataAPI
import Foundation

/// The templates of the mails the host sends, one set per kind (`verifyEmail`: a requested
/// verification link; `signup`: the link a new user is sent; `resetPassword`: a password-reset
/// link), each a subject, a plain-text body and an HTML body. The operator edits them as files
/// in a directory (`templates/mail` in the data directory, written with the defaults on first
/// start): `KIND.subject.txt`, `KIND.txt`, `KIND.html`, read at each send so an edit applies at
/// once; a missing file uses the default.
///
/// Placeholders are `{{name}}` (LeanCloud's names): `appname`, `username`, `email`, `link`,
/// `hours` (how long the link works). In HTML every value is escaped, in `{{{name}}}` too: a
/// username can't add markup to a mail sent under the app's name.
public struct MailTemplates: Sendable {
    /// The kinds of mail, as `OutgoingMessage.template` names them.
    public static let kinds = ["verifyEmail", "signup", "resetPassword"]
    /// The longest value placed, in characters (a username can be long).
    static let maxValueLength = 500

    /// Where the operator's files are; nil uses the defaults alone.
    public var directory: String?

    /// Templates read from `directory`.
    public init(directory: String?) {
        self.directory = directory
    }

    /// The mail for `message`: its kind's templates with the message's variables; nil for a
    /// message of no known kind (its text is sent as it is).
    public func content(for message: OutgoingMessage) -> MailContent? {
        guard message.channel == .email, let kind = message.template, let defaults = Self.defaults[kind] else { return nil }
        let source = { (suffix: String, fallback: String) -> MessageTemplate in
            let file = directory.map { URL(fileURLWithPath: $0).appendingPathComponent(kind + suffix).path }
            return MessageTemplate(file.flatMap(SMSTemplates.read) ?? fallback)
        }
        let subject = source(".subject.txt", defaults.subject)
        let text = source(".txt", defaults.text)
        let html = source(".html", defaults.html)
        // Every name a template uses has a value: an unknown one is empty, not a failed send.
        var values = message.variables.mapValues { String($0.prefix(Self.maxValueLength)) }
        for name in subject.variableNames.union(text.variableNames).union(html.variableNames) where values[name] == nil {
            values[name] = ""
        }
        return MailContent(
            subject: String(((try? subject.render(values)) ?? "").prefix(250)),
            text: (try? text.render(values)) ?? message.text,
            html: try? html.render(values, escape: MessageTemplate.escapeHTML))
    }

    /// Writes the defaults into `directory` when it doesn't exist yet, for the operator to edit.
    public func writeDefaultsIfMissing() throws {
        guard let directory, !FileManager.default.fileExists(atPath: directory) else { return }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (kind, files) in Self.defaults {
            for (suffix, text) in [(".subject.txt", files.subject), (".txt", files.text), (".html", files.html)] {
                let url = URL(fileURLWithPath: directory).appendingPathComponent(kind + suffix)
                try Data((text + "\n").utf8).write(to: url, options: .atomic)
            }
        }
    }

    /// The built-in subject, text and HTML of each kind.
    static let defaults: [String: (subject: String, text: String, html: String)] = [
        "verifyEmail": (
            "Verify your email address for {{appname}}",
            """
            Hello {{username}},

            Open this link to verify the email address {{email}} for {{appname}}:

            {{link}}

            The link works for {{hours}} hour(s). If you didn't ask for it, ignore this mail.
            """,
            html(
                "Hello {{username}},", "Open this link to verify the email address {{email}} for {{appname}}:",
                button: "Verify my email address",
                footer: "The link works for {{hours}} hour(s). If you didn't ask for it, ignore this mail.")
        ),
        "signup": (
            "Welcome to {{appname}}: verify your email address",
            """
            Hello {{username}},

            Thanks for signing up to {{appname}}. Open this link to verify your email address, {{email}}:

            {{link}}

            The link works for {{hours}} hour(s). If you didn't sign up, ignore this mail.
            """,
            html(
                "Hello {{username}},", "Thanks for signing up to {{appname}}. Open this link to verify your email address, {{email}}:",
                button: "Verify my email address",
                footer: "The link works for {{hours}} hour(s). If you didn't sign up, ignore this mail.")
        ),
        "resetPassword": (
            "Reset your password for {{appname}}",
            """
            Hello {{username}},

            Someone, we hope you, asked to reset the password of your {{appname}} account. Open this link to choose a new one:

            {{link}}

            The link works for {{hours}} hour(s). If you didn't ask for it, ignore this mail: your password stays as it is.
            """,
            html(
                "Hello {{username}},",
                "Someone, we hope you, asked to reset the password of your {{appname}} account. Open this link to choose a new one:",
                button: "Choose a new password",
                footer: "The link works for {{hours}} hour(s). If you didn't ask for it, ignore this mail: your password stays as it is.")
        ),
    ]

    /// A plain, self-contained HTML mail: a greeting, a line, the link as a button and as text.
    private static func html(_ greeting: String, _ line: String, button: String, footer: String) -> String {
        """
        <!DOCTYPE html>
        <html><head><meta charset="utf-8"><title>{{appname}}</title></head>
        <body style="font-family: sans-serif; line-height: 1.5; color: #222;">
        <p>\(greeting)</p>
        <p>\(line)</p>
        <p><a href="{{link}}" style="display: inline-block; padding: 8px 16px; background: #2a6df4; color: #fff; text-decoration: none; border-radius: 4px;">\(button)</a></p>
        <p style="font-size: small; word-break: break-all;">{{link}}</p>
        <p style="font-size: small; color: #666;">\(footer)</p>
        </body></html>
        """
    }
}
