import ArgumentParser
import FunctionHost
import Mail
import Testing

@testable import functionhost

/// The SMTP options as `serve` reads them, from flags and environment variables: each reaches
/// the configuration, the password never reaches the banner, and unsafe or incomplete settings
/// are refused before the server starts.
@Suite struct MailOptionsTests {
    private static func configuration(_ arguments: [String], environment: [String: String] = [:]) throws -> HostConfiguration {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try SMTPOptions.parse(arguments).apply(to: &configuration, environment: environment)
        return configuration
    }

    @Test func flagsAndVariablesReachTheSettingsAndThePasswordStaysOutOfTheBanner() throws {
        let smtp = try #require(
            try Self.configuration(
                ["--smtp-host", "smtp.example.com", "--mail-from", "no-reply@example.com", "--mail-from-name", "Demo"],
                environment: ["FUNCTIONHOST_SMTP_USER": "mailer", "FUNCTIONHOST_SMTP_PASSWORD": "hunter2-secret"]
            ).mail.smtp)
        #expect(smtp.host == "smtp.example.com" && smtp.port == 587 && smtp.security == .startTLS)
        #expect(smtp.username == "mailer" && smtp.password == "hunter2-secret" && smtp.fromName == "Demo")
        var banner = StartupBanner(
            dataDirectory: "/data", host: "127.0.0.1", port: 3000, keys: AppKeys(appId: "a", appKey: "k", masterKey: "m", hookKey: "h"),
            showsSecrets: false)
        banner.mail = smtp.description
        let text = banner.lines.joined(separator: "\n")
        #expect(text.contains("smtp://smtp.example.com:587 (starttls, as mailer") && !text.contains("hunter2"), "\(text)")
        #expect(!String(describing: smtp).contains("hunter2"))

        let tls = try #require(try Self.configuration([], environment: [
            "FUNCTIONHOST_SMTP_HOST": "mail.example.com", "FUNCTIONHOST_SMTP_SECURITY": "tls", "FUNCTIONHOST_MAIL_FROM": "a@example.com",
        ]).mail.smtp)
        #expect(tls.port == 465 && tls.security == .tls)
        #expect(try Self.configuration([]).mail.smtp == nil)
    }

    @Test func unsafeOrIncompleteSettingsAreRefused() throws {
        let refused: [([String], [String: String])] = [
            (["--smtp-host", "smtp.example.com"], [:]),
            (["--smtp-host", "smtp.example.com", "--mail-from", "not an address"], [:]),
            (["--smtp-host", "smtp.example.com", "--mail-from", "a@example.com\r\nBcc: x@y.z"], [:]),
            (["--smtp-host", "smtp.example.com", "--mail-from", "a@example.com", "--smtp-security", "ssl3"], [:]),
            (["--smtp-host", "smtp.example.com", "--mail-from", "a@example.com", "--smtp-port", "70000"], [:]),
            // A password is never sent in clear text.
            (["--smtp-host", "smtp.example.com", "--mail-from", "a@example.com", "--smtp-security", "none", "--smtp-user", "u"],
             ["FUNCTIONHOST_SMTP_PASSWORD": "p"]),
            (["--smtp-host", "smtp.example.com", "--mail-from", "a@example.com", "--smtp-user", "u"], [:]),
            (["--mail-from", "a@example.com"], [:]),
            (["--smtp-host", "smtp.example.com", "--mail-from", "a@example.com", "--smtp-ca-file", "/nonexistent/ca.pem"], [:]),
        ]
        for (arguments, environment) in refused {
            // Refused when parsed (`validate`) or, with the environment's values, when applied.
            #expect(throws: (any Error).self, "\(arguments)") { try Self.configuration(arguments, environment: environment) }
        }
    }
}
