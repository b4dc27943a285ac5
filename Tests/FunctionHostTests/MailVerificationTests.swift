import DataAPI
import Foundation
import HTTPTypes
import JSON
import Mail
import TestSupport
import Testing

@testable import FunctionHost

/// The host's mails through a real SMTP server (aiosmtpd on a loopback port), over real HTTP,
/// on both engines: the verification, signup and password-reset mails arrive made from the
/// templates (the defaults, written to the data directory, or the operator's edits), their
/// links work, values from users' data stay text, and a failed send answers 602.
@Suite(.serialized) struct MailVerificationTests {
    /// A server sending email through `smtp`, with a public URL, on `directory` (kept by the caller).
    static func run(
        _ smtp: SMTPTestServer, directory: String? = nil, configure: @escaping @Sendable (inout HostConfiguration) -> Void = { _ in },
        _ body: @Sendable (API, String) async throws -> Void
    ) async throws {
        let directory = try directory ?? TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = smtp.port
        try await TestServer.run(dataDirectory: directory, configure: {
            $0.publicURL = "https://api.example.com"
            $0.verification.appName = "Demo"
            var settings = SMTPSettings(host: "127.0.0.1", port: port, from: try! MailAddress("no-reply@demo.example"))
            settings.attempts = 1
            $0.mail.smtp = settings
            configure(&$0)
        }) { api in try await body(api, directory) }
    }

    @Test func verificationAndResetMailsArriveAndTheirLinksWork() async throws {
        try await SMTPTestServer.run { smtp in
            try await Self.run(smtp) { api, directory in
                _ = try await api.post("/1.1/users", ["username": "ada", "password": "old", "email": "ada@example.com"])
                #expect(try await api.post("/1.1/requestEmailVerify", ["email": "ada@example.com"]).status == .ok)
                var mails = try smtp.messages()
                let verify = try #require(mails.first)
                #expect(verify["subject"] == "Verify your email address for Demo")
                #expect(verify["from"] == "Demo <no-reply@demo.example>" && verify["rcptTos"] == ["ada@example.com"])
                #expect(verify["contentType"] == "multipart/alternative" && verify["defects"] == [])
                let text = try #require(verify["text"]?.stringValue)
                #expect(text.hasPrefix("Hello ada,") && text.contains("24 hour(s)"), "\(text)")
                let link = try #require(text.split(separator: "\n").first { $0.hasPrefix("https://api.example.com/1.1/emailVerify/") })
                #expect(verify["html"]?.stringValue?.contains("href=\"\(link)\"") == true)
                // Nothing in the outbox: SMTP is the email sender.
                #expect(try await Outbox.messages(api, to: "ada@example.com").isEmpty)
                let page = try await api.get(String(link.dropFirst("https://api.example.com".count)), headers: Headers.none)
                #expect(page.status == .ok, "\(page)")

                // Another address: one address is sent one link at a time.
                _ = try await api.post("/1.1/users", ["username": "bob", "password": "old", "email": "bob@example.com"])
                #expect(try await api.post("/1.1/requestPasswordReset", ["email": "bob@example.com"]).status == .ok)
                mails = try smtp.messages()
                let reset = try #require(mails.last)
                #expect(reset["subject"] == "Reset your password for Demo" && mails.count == 2)
                #expect(reset["text"]?.stringValue?.contains("/1.1/resetPassword/") == true)
                // The defaults were written for the operator to edit.
                let subject = try String(contentsOfFile: "\(directory)/templates/mail/resetPassword.subject.txt", encoding: .utf8)
                #expect(subject == "Reset your password for {{appname}}\n")
            }
        }
    }

    @Test func theOperatorsTemplatesAreUsedAndUserValuesStayText() async throws {
        let directory = try TestServer.makeDataDirectory()
        let templates = "\(directory)/templates/mail"
        try FileManager.default.createDirectory(atPath: templates, withIntermediateDirectories: true)
        try "【{{appname}}】欢迎 {{username}}".write(toFile: "\(templates)/signup.subject.txt", atomically: true, encoding: .utf8)
        try "<h1>{{username}}</h1><a href=\"{{link}}\">{{{username}}}</a>".write(
            toFile: "\(templates)/signup.html", atomically: true, encoding: .utf8)
        try await SMTPTestServer.run { smtp in
            try await Self.run(smtp, directory: directory, configure: { $0.verification.verifyEmailOnSignup = true }) { api, _ in
                let name = "<script>alert(1)</script>\"'&"
                let signup = try await api.post("/1.1/users", ["username": .string(name), "password": "pw", "email": "eve@example.com"])
                #expect(signup.status == .created, "\(signup)")
                let mail = try #require(try smtp.messages().first)
                #expect(mail["subject"]?.stringValue == "【Demo】欢迎 \(name)")
                let html = try #require(mail["html"]?.stringValue)
                #expect(!html.contains("<script>") && html.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;</h1>"), "\(html)")
                // The text file was not written: the default signup text is used.
                #expect(mail["text"]?.stringValue?.contains("Thanks for signing up to Demo") == true)
            }
        }
    }

    @Test func aStoredAddressWithCRLFIsNeverMailed() async throws {
        try await SMTPTestServer.run { smtp in
            try await Self.run(smtp, configure: { $0.verification.verifyEmailOnSignup = true }) { api, _ in
                // The master key may store what it likes; the signup's mail refuses the address.
                let signup = try await api.post(
                    "/1.1/users", headers: Headers.master,
                    ["username": "mallory", "password": "pw", "email": "m@example.com\r\nRCPT TO:<victim@example.com>"])
                #expect(signup.status == .created || signup.status == .badRequest, "\(signup)")
                expectError(try await api.post("/1.1/requestEmailVerify", ["email": "m@example.com\r\nRCPT TO:<victim@example.com>"]), code: 125)
                #expect(try smtp.messages().isEmpty)
            }
        }
    }

    @Test func aServerThatRefusesAnswers602AndKeepsTheSendWindow() async throws {
        try await SMTPTestServer.run(["--fail-first", "100"]) { smtp in
            try await Self.run(smtp, configure: { $0.messageProtection.limits.perClient = .init(count: 1, period: 3600) }) { api, _ in
                _ = try await api.post("/1.1/users", ["username": "bo", "password": "pw", "email": "bo@example.com"])
                let failed = try await api.post("/1.1/requestPasswordReset", ["email": "bo@example.com"])
                #expect(failed.status == .badGateway && failed["code"] == 602, "\(failed)")
                #expect(failed["error"]?.stringValue?.contains("451") == true)
                // The server may have received it: the attempt counts against the window.
                expectError(try await api.post("/1.1/requestPasswordReset", ["email": "bo@example.com"]), code: 601)
            }
        }
    }

    @Test func withSMTPSMSStillGoToTheWebhookAndWithoutItMailsKeepTheirTemplates() async throws {
        try await WebhookReceiver.run { receiver in
            try await SMTPTestServer.run { smtp in
                try await Self.run(smtp, configure: { $0.messageWebhook = URL(string: receiver.url("/messages")) }) { api, _ in
                    _ = try await api.post("/1.1/users", ["username": "cy", "password": "pw", "email": "cy@example.com"])
                    #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000009"]).status == .ok)
                    #expect(try await api.post("/1.1/requestEmailVerify", ["email": "cy@example.com"]).status == .ok)
                    #expect(receiver.messages.map { $0["to"] } == ["13800000009"])
                    #expect(try smtp.messages().map { $0["rcptTos"] } == [["cy@example.com"]])
                }
            }
        }
        // No SMTP server: the outbox keeps the mail, with the subject and HTML its template made.
        try await VerificationTests.run(configure: { $0.publicURL = "https://api.example.com" }) { api in
            _ = try await api.post("/1.1/users", ["username": "di", "password": "pw", "email": "di@example.com"])
            #expect(try await api.post("/1.1/requestPasswordReset", ["email": "di@example.com"]).status == .ok)
            let message = try #require(try await Outbox.messages(api, to: "di@example.com").first)
            #expect(message["subject"] == "Reset your password for FunctionHost" && message["template"] == "resetPassword")
            #expect(message["html"]?.stringValue?.contains("Choose a new password") == true)
            #expect(message["variables"]?["username"] == "di" && message["text"]?.stringValue?.hasPrefix("Hello di,") == true)
        }
    }
}
