import ArgumentParser
import Foundation
import FunctionHost
import Mail

/// The options of `serve` for email over SMTP: the server, its security, the login and the
/// sender. Without `--smtp-host`, email goes where SMS go (the webhook or `_Outbox`).
struct SMTPOptions: ParsableArguments {
    @Option(
        name: .customLong("smtp-host"),
        help: "Send email through this SMTP server (default: $FUNCTIONHOST_SMTP_HOST; without it, email goes to the webhook or _Outbox).")
    var host: String?

    @Option(
        name: .customLong("smtp-port"),
        help: "The SMTP server's port (default: $FUNCTIONHOST_SMTP_PORT, else 587 for starttls, 465 for tls, 25 for none).")
    var port: Int?

    @Option(
        name: .customLong("smtp-security"),
        help: ArgumentHelp(
            "starttls (upgrade, refused if the server can't), tls (from the first byte) or none (default: $FUNCTIONHOST_SMTP_SECURITY, else starttls).",
            valueName: "mode"))
    var security: String?

    @Option(name: .customLong("smtp-user"), help: "The user to log in as (AUTH PLAIN or LOGIN) (default: $FUNCTIONHOST_SMTP_USER).")
    var user: String?

    @Option(
        name: .customLong("smtp-password"),
        help: "The user's password; prefer $FUNCTIONHOST_SMTP_PASSWORD, which other users can't read in the process list. Never logged.")
    var password: String?

    @Option(
        name: .customLong("smtp-ca-file"),
        help: ArgumentHelp("A PEM file of CA certificates trusted besides the system's, for a server with a private CA.", valueName: "file"))
    var caFile: String?

    @Option(name: .customLong("mail-from"), help: "The address mails come from, e.g. no-reply@example.com (default: $FUNCTIONHOST_MAIL_FROM).")
    var from: String?

    @Option(
        name: .customLong("mail-from-name"),
        help: "The name shown beside it (default: $FUNCTIONHOST_MAIL_FROM_NAME, else the app's name, --sms-app-name).")
    var fromName: String?

    /// The banner's line about mail: the server, never its password.
    static func summary(of configuration: HostConfiguration) -> String? {
        configuration.mail.smtp?.description
    }

    /// Refuses incomplete or unsafe settings before the server starts.
    func validate() throws {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try apply(to: &configuration, environment: ProcessInfo.processInfo.environment)
    }

    /// Applies the options (and their environment variables) to a configuration.
    func apply(to configuration: inout HostConfiguration, environment: [String: String]) throws {
        let value = { (option: String?, variable: String) in (option ?? environment[variable]).flatMap { $0.isEmpty ? nil : $0 } }
        guard let host = value(host, "FUNCTIONHOST_SMTP_HOST") else {
            if value(from, "FUNCTIONHOST_MAIL_FROM") != nil || value(user, "FUNCTIONHOST_SMTP_USER") != nil {
                throw ValidationError("--mail-from and --smtp-user need --smtp-host: the server mails go through.")
            }
            return
        }
        let securityText = value(security, "FUNCTIONHOST_SMTP_SECURITY") ?? "starttls"
        guard let security = SMTPSettings.Security(rawValue: securityText.lowercased()) else {
            throw ValidationError("--smtp-security takes starttls, tls or none, not '\(securityText)'.")
        }
        guard let fromText = value(from, "FUNCTIONHOST_MAIL_FROM") else {
            throw ValidationError("--smtp-host needs --mail-from, the address mails come from.")
        }
        let from: MailAddress
        do {
            from = try MailAddress(fromText)
        } catch {
            throw ValidationError("--mail-from needs an email address such as no-reply@example.com, not '\(fromText)'.")
        }
        let defaultPort = [SMTPSettings.Security.startTLS: 587, .tls: 465, .none: 25][security]!
        var port = defaultPort
        if let text = self.port.map(String.init) ?? environment["FUNCTIONHOST_SMTP_PORT"] {
            guard let number = Int(text), (1...65_535).contains(number) else {
                throw ValidationError("--smtp-port takes a port from 1 to 65535, not '\(text)'.")
            }
            port = number
        }
        var settings = SMTPSettings(host: host, port: port, security: security, from: from)
        settings.username = value(user, "FUNCTIONHOST_SMTP_USER")
        settings.password = value(password, "FUNCTIONHOST_SMTP_PASSWORD")
        settings.fromName = value(fromName, "FUNCTIONHOST_MAIL_FROM_NAME")
        settings.caFile = caFile
        if settings.username != nil, security == .none {
            throw ValidationError("--smtp-user needs --smtp-security starttls or tls: the password is never sent in clear text.")
        }
        if (settings.username == nil) != (settings.password == nil) {
            throw ValidationError("--smtp-user and its password ($FUNCTIONHOST_SMTP_PASSWORD) go together.")
        }
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("--smtp-ca-file: can't read '\(caFile)'.")
        }
        configuration.mail.smtp = settings
    }
}
