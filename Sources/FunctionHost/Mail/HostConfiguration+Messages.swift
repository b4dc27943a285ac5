import DataAPI
import Foundation
import Logging
import Mail

extension HostConfiguration {
    /// Where the host's messages go: email through SMTP when a server is configured, else with
    /// SMS to the embedder's sender, the webhook or the outbox; every email of a known kind
    /// made from the mail templates first (written to the data directory with the defaults on
    /// first start).
    func makeMessageSender(data: DataService, logger: Logger) throws -> any MessageSender {
        let other =
            messageSender
            ?? messageWebhook.map { WebhookSender(url: $0, hookKey: keys.hookKey) }
            ?? OutboxSender(data: data, logger: logger)
        let email: any MessageSender = mail.smtp.map { SMTPSender(settings: $0, logger: logger, now: clock) } ?? other
        let templates = MailTemplates(directory: mail.templatesDirectory ?? templatesDirectory("mail"))
        try templates.writeDefaultsIfMissing()
        return TemplatedMailSender(templates: templates, next: ChannelSender(email: email, sms: other))
    }

    /// The verification settings, with the SMS templates in the data directory unless set.
    var verificationSettings: UserVerification.Settings {
        var settings = verification
        if settings.smsTemplates.directory == nil { settings.smsTemplates.directory = templatesDirectory("sms") }
        return settings
    }

    /// `templates/KIND` in the data directory.
    private func templatesDirectory(_ kind: String) -> String {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("templates").appendingPathComponent(kind).path
    }
}
