import NIOCore
import NIOSSL

extension SMTPConnection {
    /// The commands and replies of one connection, in order.
    struct Session {
        var inbound: NIOAsyncChannelInboundStream<SMTPReply>.AsyncIterator
        let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
        let channel: any Channel

        /// The next reply, which must be `code`.
        mutating func expect(_ code: Int, _ what: String) async throws {
            _ = try await expect([code], what)
        }

        /// The next reply, which must have one of `codes`: 4xx otherwise is a transient
        /// failure, anything else a permanent one.
        private mutating func expect(_ codes: [Int], _ what: String) async throws -> SMTPReply {
            guard let reply = try await inbound.next() else {
                throw MailError(.transient, "The SMTP server closed the connection before answering (\(what)).")
            }
            guard codes.contains(reply.code) else {
                let kind: MailError.Kind = (400..<500).contains(reply.code) ? .transient : .permanent
                throw MailError(kind, "The SMTP server answered \(what) with \(reply.summary)")
            }
            return reply
        }

        /// Sends one command line and reads its reply. A line holding CR or LF is refused
        /// whatever made it: a value can't add a command. `what` names the step in a failure
        /// (the verb by default: the rest of a line may hold credentials).
        @discardableResult
        mutating func command(_ line: String, expect codes: Int..., what: String? = nil) async throws -> SMTPReply {
            guard !line.utf8.contains(where: { $0 == 13 || $0 == 10 }), line.utf8.count <= 510 else {
                throw MailError(.invalidInput, "An SMTP command can't be written with this value.")
            }
            try await write(Array((line + "\r\n").utf8))
            return try await expect(codes, what ?? String(line.prefix { $0 != " " && $0 != ":" }))
        }

        mutating func write(_ bytes: [UInt8]) async throws {
            try await outbound.write(ByteBuffer(bytes: bytes))
        }

        /// EHLO: the extensions the server lists (one per line after the first).
        mutating func hello(_ name: String) async throws -> [String] {
            try await write(Array("EHLO \(name)\r\n".utf8))
            let reply = try await expect([250], "EHLO")
            return Array(reply.lines.dropFirst())
        }

        /// Sends STARTTLS and puts TLS under the connection after the server's 220. Bytes that
        /// came with the 220 are refused, not read after the handshake as if TLS had carried
        /// them (the command injection of CVE-2011-0411).
        mutating func startTLS(_ context: NIOSSLContext, serverName: String?) async throws {
            let reply = try await command("STARTTLS", expect: 220)
            guard !reply.followedByBytes else {
                throw MailError(.permanent, "The SMTP server sent more after its STARTTLS reply: refused.")
            }
            try await channel.eventLoop.submit { [channel] in
                try channel.pipeline.syncOperations.addHandler(
                    NIOSSLClientHandler(context: context, serverHostname: serverName), position: .first)
            }.get()
        }

        /// AUTH PLAIN when the server offers it, else AUTH LOGIN.
        mutating func logIn(username: String, password: String, extensions: [String]) async throws {
            let mechanisms = extensions.first { $0.uppercased().hasPrefix("AUTH ") || $0.uppercased().hasPrefix("AUTH=") }
                .map { $0.dropFirst(5).uppercased().split(separator: " ").map(String.init) } ?? []
            if mechanisms.contains("PLAIN") {
                let token = Base64.encode(Array("\0\(username)\0\(password)".utf8))
                try await command("AUTH PLAIN \(token)", expect: 235, what: "AUTH PLAIN")
            } else if mechanisms.contains("LOGIN") {
                try await command("AUTH LOGIN", expect: 334)
                try await command(Base64.encode(Array(username.utf8)), expect: 334, what: "AUTH LOGIN")
                try await command(Base64.encode(Array(password.utf8)), expect: 235, what: "AUTH LOGIN")
            } else {
                throw MailError(.permanent, "The SMTP server offers no AUTH PLAIN or LOGIN to log in with.")
            }
        }
    }
}
