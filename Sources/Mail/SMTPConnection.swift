import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// One SMTP conversation: connect, greet, secure (STARTTLS or TLS), log in, send one message to
/// one recipient, quit. Every reply is bounded (`SMTPReplyDecoder`); the whole conversation
/// has `SMTPSettings.messageBudget`, after which the connection is closed and the attempt fails.
struct SMTPConnection {
    let settings: SMTPSettings

    /// Sends `data` (a whole message, CRLF lines) from the settings' address to `recipient`.
    func send(_ data: [UInt8], to recipient: MailAddress) async throws(MailError) {
        let timedOut = Mutex(false)
        do {
            let tls = try makeTLSContext()
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(Self.amount(min(settings.connectTimeout, settings.messageBudget)))
                .connect(host: settings.host, port: settings.port) { [settings] channel in
                    channel.eventLoop.makeCompletedFuture {
                        if settings.security == .tls, let tls {
                            try channel.pipeline.syncOperations.addHandler(
                                NIOSSLClientHandler(context: tls, serverHostname: Self.serverName(settings.host)))
                        }
                        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                        return try NIOAsyncChannel<SMTPReply, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            let deadline = channel.channel.eventLoop.scheduleTask(in: Self.amount(settings.messageBudget)) {
                timedOut.withLock { $0 = true }
                channel.channel.close(promise: nil)
            }
            defer { deadline.cancel() }
            try await channel.executeThenClose { inbound, outbound in
                var session = Session(inbound: inbound.makeAsyncIterator(), outbound: outbound, channel: channel.channel)
                try await converse(&session, data: data, recipient: recipient, tls: tls)
            }
        } catch let error as MailError {
            throw timedOut.withLock { $0 } ? budgetError : error
        } catch {
            if timedOut.withLock({ $0 }) { throw budgetError }
            if error is NIOSSLError || error is BoringSSLError {
                throw MailError(.permanent, "TLS with the SMTP server failed: \(error)")
            }
            throw MailError(.transient, "The SMTP server could not be reached: \(error)")
        }
    }

    private var budgetError: MailError {
        MailError(.transient, "The SMTP server did not finish within \(settings.messageBudget).")
    }

    private func converse(_ session: inout Session, data: [UInt8], recipient: MailAddress, tls: NIOSSLContext?) async throws {
        try await session.expect(220, "greeting")
        var extensions = try await session.hello(helloName)
        if settings.security == .startTLS {
            guard extensions.contains(where: { $0.uppercased() == "STARTTLS" }), let tls else {
                throw MailError(.permanent, "The SMTP server does not offer STARTTLS, which the settings require.")
            }
            try await session.startTLS(tls, serverName: Self.serverName(settings.host))
            extensions = try await session.hello(helloName)
        }
        if let username = settings.username {
            try await session.logIn(username: username, password: settings.password ?? "", extensions: extensions)
        }
        try await session.command("MAIL FROM:<\(settings.from)>", expect: 250)
        try await session.command("RCPT TO:<\(recipient)>", expect: 250, 251)
        try await session.command("DATA", expect: 354)
        try await session.write(Self.stuffed(data))
        try await session.expect(250, "message")
        // The message is accepted; a server that drops the line before answering QUIT changes nothing.
        _ = try? await session.command("QUIT", expect: 221)
    }

    /// A duration as NIO's time amount.
    static func amount(_ duration: Duration) -> TimeAmount {
        let (seconds, attoseconds) = duration.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// The name the client greets with: the sender's domain.
    private var helloName: String { String(settings.from.domain) }

    /// The host name checked against the server's certificate and sent as SNI; an IP address is
    /// checked against the certificate's IP entries instead, and never sent as SNI.
    static func serverName(_ host: String) -> String? {
        (try? SocketAddress(ipAddress: host, port: 0)) == nil ? host : nil
    }

    private func makeTLSContext() throws -> NIOSSLContext? {
        guard settings.security != .none else { return nil }
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.caFile { configuration.additionalTrustRoots = [.file(caFile)] }
        return try NIOSSLContext(configuration: configuration)
    }

    /// The message as DATA sends it: every line ended by CRLF (a bare LF or CR becomes one),
    /// a line starting with `.` given another (RFC 5321 § 4.5.2), then the lone `.` that ends it.
    ///
    /// - Throws: a line longer than 998 bytes (RFC 5321 § 4.5.3.1.6).
    static func stuffed(_ data: [UInt8]) throws(MailError) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(data.count + data.count / 50 + 5)
        var lineLength = 0
        var index = 0
        while index < data.count {
            let byte = data[index]
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                result += [13, 10]
                lineLength = 0
                if byte == UInt8(ascii: "\r"), index + 1 < data.count, data[index + 1] == UInt8(ascii: "\n") { index += 1 }
            } else {
                if lineLength == 0, byte == UInt8(ascii: ".") { result.append(UInt8(ascii: ".")) }
                result.append(byte)
                lineLength += 1
                guard lineLength <= 998 else { throw MailError(.invalidInput, "A message line is longer than 998 bytes.") }
            }
            index += 1
        }
        if lineLength > 0 || result.isEmpty { result += [13, 10] }
        return result + Array(".\r\n".utf8)
    }
}
