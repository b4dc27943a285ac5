public import DataAPI
import HTTPTypes
import NIOCore

/// Where the links and URLs the server hands out point. Never the request's `Host` (nor
/// `X-Forwarded-Proto`): a client writes those, and a password-reset link built from them
/// sends its token to whatever host the client named.
enum LinkBase {
    /// The links in emails, under the configured public URL; without one, emailing links is
    /// refused (400, code 1), since no address the server can see is one a person should open.
    static func forEmail(publicURL: String?) throws -> EmailLinks {
        guard let publicURL else { throw missingPublicURL }
        return EmailLinks(publicURL: publicURL)
    }

    /// The start of file URLs: the configured public URL, else the address the connection
    /// reached this server at.
    static func forFiles(publicURL: String?, context: HostRequestContext) -> String {
        publicURL ?? context.serverAddress ?? "http://localhost"
    }

    /// `http://<ip>:<port>` of a socket address (brackets around an IPv6 address); nil for
    /// one without an IP address.
    static func serverAddress(of address: SocketAddress?) -> String? {
        guard let address, let ip = address.ipAddress, let port = address.port else { return nil }
        return "http://\(ip.contains(":") ? "[\(ip)]" : ip):\(port)"
    }

    /// What a request that would email a link is answered when no public URL is configured.
    static let missingPublicURL = HostError(
        status: .badRequest, code: 1,
        message:
            "Email links are off: this server has no public URL to put in them. Start it with --public-url https://your.domain (or FUNCTIONHOST_PUBLIC_URL).")
}

extension EmailLinks {
    /// Links to this server's verification pages (`VerificationPages`) under its public URL.
    init(publicURL: String) {
        self.init(
            verifyEmail: { "\(publicURL)/1.1/emailVerify/\($0)" },
            resetPassword: { "\(publicURL)/1.1/resetPassword/\($0)" })
    }
}

extension UserVerification {
    /// The messages a new user is sent, with links under the server's public URL; nil sends no
    /// link (see `sendSignupMessages(to:links:)`).
    func sendSignupMessages(to user: StoredObject, linkBase publicURL: String?) async throws {
        try await sendSignupMessages(to: user, links: publicURL.map(EmailLinks.init(publicURL:)))
    }
}

extension FileURLs {
    /// This server's file URLs under `base` (its public URL, or the address a request reached),
    /// where `FileRoutes` serves them: `base/files/<key>`, or `base/files/<key>/<name>` with the
    /// name percent-encoded as JavaScript's `encodeURIComponent` does.
    public static func served(at base: String) -> FileURLs {
        FileURLs { key, name in
            guard let name else { return "\(base)/files/\(key)" }
            return "\(base)/files/\(key)/\(percentEncoded(name))"
        }
    }

    /// `encodeURIComponent`: every byte of the UTF-8 but ASCII letters, digits and `-_.!~*'()`.
    static func percentEncoded(_ text: String) -> String {
        let kept = Set("-_.!~*'()".utf8)
        var out = ""
        for byte in text.utf8 {
            let isAlphanumeric = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
            if isAlphanumeric || kept.contains(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return out
    }
}
