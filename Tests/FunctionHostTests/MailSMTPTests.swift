import DataAPI
import Foundation
import JSON
import Logging
import Synchronization
import TestSupport
import Testing

@testable import Mail

/// The SMTP client against a real server (aiosmtpd, started per test on a loopback port),
/// reading what it delivered: MIME as Python's email parser reads it, STARTTLS and TLS with a
/// certificate the test makes, AUTH PLAIN and LOGIN, retries with back-off, and the attacks:
/// CRLF in every value a user's data reaches, hostile servers (endless lines, endless replies,
/// silence, a reply smuggled after STARTTLS).
@Suite(.serialized) struct MailSMTPTests {
    /// The waits between attempts, recorded instead of slept.
    final class Waits: Sendable {
        let values = Mutex<[Duration]>([])
        var recorded: [Duration] { values.withLock { $0 } }
        var sleep: @Sendable (Duration) async throws -> Void { { duration in self.values.withLock { $0.append(duration) } } }
    }

    static func settings(_ server: SMTPTestServer, _ security: SMTPSettings.Security = .none) throws -> SMTPSettings {
        var settings = SMTPSettings(host: "127.0.0.1", port: server.port, security: security, from: try MailAddress("no-reply@app.example"))
        settings.messageBudget = .seconds(20)
        return settings
    }

    static func sender(_ settings: SMTPSettings, _ waits: Waits = Waits()) -> SMTPSender {
        SMTPSender(settings: settings, logger: Logger(label: "mail-test"), sleep: waits.sleep)
    }

    static func mail(_ to: String = "ada@example.com", subject: String = "Hello", text: String = "Plain body", html: String? = "<p>HTML body</p>")
        -> OutgoingMessage
    {
        var message = OutgoingMessage(channel: .email, to: to, purpose: "verifyEmail", text: text)
        message.subject = subject
        message.html = html
        message.variables = ["appname": "Demo App"]
        return message
    }

    /// The 602 (or other code) a send failed with.
    static func failure(_ send: () async throws -> Void) async -> DataAPIError? {
        do {
            try await send()
            return nil
        } catch {
            return error as? DataAPIError
        }
    }

    @Test func aMailArrivesAsMultipartAlternativeWithAnEncodedUTF8Subject() async throws {
        try await SMTPTestServer.run { server in
            let subject = "Vérifiez votre adresse — 验证你的邮箱地址, a subject long enough to need several encoded words 🎉"
            var message = Self.mail(subject: subject, text: "Bonjour Ada,\n\n.a line with a dot\n.\nfin", html: "<p>Bonjour <b>Ada</b></p>")
            message.variables["appname"] = "Démo Äpp"
            try await Self.sender(try Self.settings(server)).send(message)
            let mail = try #require(try server.messages().first)
            #expect(mail["mailFrom"] == "no-reply@app.example" && mail["rcptTos"] == ["ada@example.com"])
            #expect(mail["contentType"] == "multipart/alternative")
            #expect(mail["subject"]?.stringValue == subject)
            #expect(mail["from"] == "Démo Äpp <no-reply@app.example>")
            #expect(mail["text"]?.stringValue == "Bonjour Ada,\n\n.a line with a dot\n.\nfin")
            #expect(mail["html"]?.stringValue == "<p>Bonjour <b>Ada</b></p>")
            #expect(mail["defects"] == [], "\(mail)")
            let headers = Set(mail["headerNames"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            #expect(headers.isSuperset(of: ["From", "To", "Subject", "Date", "Message-ID", "MIME-Version", "Content-Type"]))
            // No line of the raw message is longer than RFC 5322's 78 characters.
            let raw = try #require(mail["raw"]?.stringValue)
            #expect(raw.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 78 }, "\(raw)")
        }
    }

    @Test func linesStartingWithADotAreStuffedAndArriveWhole() async throws {
        try await SMTPTestServer.run { server in
            let raw = "Subject: dots\r\n\r\n.\r\n..two\r\n.hidden\r\nlast line without an ending"
            try await SMTPConnection(settings: try Self.settings(server)).send(Array(raw.utf8), to: try MailAddress("ada@example.com"))
            let mail = try #require(try server.messages().first)
            #expect(mail["raw"]?.stringValue == raw + "\r\n", "\(mail)")
            #expect(try SMTPConnection.stuffed(Array("a\n.b\r\n.\r".utf8)) == Array("a\r\n..b\r\n..\r\n.\r\n".utf8))
        }
    }

    @Test(arguments: ["PLAIN", "LOGIN"]) func startTLSThenAuthDelivers(mechanism: String) async throws {
        let folder = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (certificate, key) = try await SMTPTestServer.makeCertificate(in: folder)
        try await SMTPTestServer.run(["--starttls", certificate, key, "--auth", "mailer", "s3cret", "--auth-only", mechanism]) { server in
            var settings = try Self.settings(server, .startTLS)
            settings.caFile = certificate
            settings.username = "mailer"
            settings.password = "s3cret"
            try await Self.sender(settings).send(Self.mail())
            let mail = try #require(try server.messages().first)
            #expect(mail["tls"] == true && mail["authenticated"] == true && mail["login"] == "mailer", "\(mail)")
            // A wrong password fails at once (535 is permanent): nothing sent, no retry.
            settings.password = "wrong"
            let waits = Waits()
            let error = await Self.failure { try await Self.sender(settings, waits).send(Self.mail()) }
            #expect(error?.code == .messageNotSent && error?.message.contains("535") == true, "\(String(describing: error))")
            #expect(!(error?.message.contains("wrong") ?? true))
            #expect(waits.recorded.isEmpty)
            #expect(try server.messages().count == 1)
        }
    }

    @Test func implicitTLSDeliversAndAnUntrustedCertificateIsRefused() async throws {
        let folder = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (certificate, key) = try await SMTPTestServer.makeCertificate(in: folder)
        try await SMTPTestServer.run(["--tls", certificate, key]) { server in
            var settings = try Self.settings(server, .tls)
            settings.caFile = certificate
            try await Self.sender(settings).send(Self.mail())
            #expect(try server.messages().first?["tls"] == true)
            // Without the test's CA the certificate is not trusted: refused for good, not retried.
            settings.caFile = nil
            let waits = Waits()
            let error = await Self.failure { try await Self.sender(settings, waits).send(Self.mail()) }
            #expect(error?.code == .messageNotSent && waits.recorded.isEmpty, "\(String(describing: error))")
            #expect(try server.messages().count == 1)
        }
    }

    @Test func startTLSIsRequiredWhenConfigured() async throws {
        try await SMTPTestServer.run { server in
            let error = await Self.failure { try await Self.sender(try Self.settings(server, .startTLS)).send(Self.mail()) }
            #expect(error?.code == .messageNotSent && error?.message.contains("STARTTLS") == true, "\(String(describing: error))")
            let delivered = try server.messages()
            #expect(delivered.isEmpty)
        }
    }

    @Test func transientFailuresAreRetriedWithBackOff() async throws {
        try await SMTPTestServer.run(["--fail-first", "2"]) { server in
            let waits = Waits()
            try await Self.sender(try Self.settings(server), waits).send(Self.mail())
            #expect(waits.recorded == [.seconds(1), .seconds(2)])
            #expect(try server.messages().count == 1)
        }
        try await SMTPTestServer.run(["--fail-first", "5"]) { server in
            let waits = Waits()
            let error = await Self.failure { try await Self.sender(try Self.settings(server), waits).send(Self.mail()) }
            #expect(error?.code == .messageNotSent && error?.message.contains("451") == true, "\(String(describing: error))")
            #expect(waits.recorded == [.seconds(1), .seconds(2)])
            let delivered = try server.messages()
            #expect(delivered.isEmpty)
        }
    }

    @Test func crlfInAnAddressNeverReachesTheServer() async throws {
        try await SMTPTestServer.run { server in
            let sender = Self.sender(try Self.settings(server))
            for address in [
                "ada@example.com>\r\nRCPT TO:<eve@example.com", "ada@example.com\nBcc: eve@example.com", "ada@exa mple.com",
                "<ada@example.com>", "ada@example.com,eve@example.com", "ädä@example.com", String(repeating: "a", count: 250) + "@x.com",
            ] {
                let error = await Self.failure { try await sender.send(Self.mail(address)) }
                #expect(error?.code == .invalidEmail, "\(address): \(String(describing: error))")
            }
            #expect(try server.messages().isEmpty)
        }
    }

    @Test func crlfInASubjectOrNameStaysInsideItsHeader() async throws {
        try await SMTPTestServer.run { server in
            var message = Self.mail(subject: "Hi\r\nBcc: eve@example.com\r\n\r\nforged body")
            message.variables["appname"] = "App\r\nBcc: eve@example.com"
            try await Self.sender(try Self.settings(server)).send(message)
            let mail = try #require(try server.messages().first)
            #expect(mail["rcptTos"] == ["ada@example.com"])
            let headers = mail["headerNames"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(!headers.contains("Bcc") && headers.filter { $0 == "Subject" }.count == 1, "\(headers)")
            #expect(mail["subject"]?.stringValue == "Hi  Bcc: eve@example.com    forged body")
            #expect(mail["text"] == "Plain body" && mail["defects"] == [])
        }
    }

    @Test(arguments: ["long-line", "many-lines", "silent", "inject-after-starttls"])
    func hostileServersFailTheSendWithinItsBounds(mode: String) async throws {
        try await SMTPTestServer.run(["--hostile", mode]) { server in
            var settings = try Self.settings(server, mode == "inject-after-starttls" ? .startTLS : .none)
            settings.messageBudget = .milliseconds(mode == "silent" ? 300 : 20_000)
            settings.attempts = 1
            let error = await Self.failure { try await Self.sender(settings).send(Self.mail()) }
            let expected = [
                "long-line": "longer than 2048", "many-lines": "more than 64 lines", "silent": "did not finish within",
                "inject-after-starttls": "more after its STARTTLS",
            ][mode]!
            #expect(error?.code == .messageNotSent && error?.message.contains(expected) == true, "\(String(describing: error))")
        }
    }
}
