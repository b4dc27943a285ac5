/// How the host reaches its SMTP server: where, how the connection is secured, who it logs in
/// as, whom mails come from, and the bounds of each attempt.
public struct SMTPSettings: Sendable, CustomStringConvertible {
    /// How the connection is secured.
    public enum Security: String, Sendable, Hashable, CaseIterable {
        /// Plain text all along (a relay on the same machine or network).
        case none
        /// Plain text, then `STARTTLS` before anything else is said; a server that doesn't
        /// offer it is refused (port 587).
        case startTLS = "starttls"
        /// TLS from the first byte (port 465).
        case tls
    }

    /// The server's host name or address.
    public var host: String
    /// The server's port.
    public var port: Int
    /// Plain, STARTTLS or TLS.
    public var security: Security
    /// The user to log in as (AUTH PLAIN, else LOGIN); nil sends without logging in.
    public var username: String?
    /// The user's password; never written to a log or the startup banner.
    public var password: String?
    /// The address mails come from (the envelope's and the `From` header's).
    public var from: MailAddress
    /// The name shown beside `from`; nil shows the app's name.
    public var fromName: String?
    /// A PEM file of certificates trusted besides the system's (a private CA's, a test's).
    public var caFile: String?
    /// How long one attempt may take, connection to the last reply.
    public var messageBudget: Duration = .seconds(15)
    /// How long connecting may take, within the budget.
    public var connectTimeout: Duration = .seconds(10)
    /// Attempts per message, the first included.
    public var attempts = 3
    /// The wait before the second attempt; each later wait doubles it.
    public var backoff: Duration = .seconds(1)

    /// Settings for a server; plain port 25 by default.
    public init(host: String, port: Int = 25, security: Security = .none, from: MailAddress) {
        self.host = host
        self.port = port
        self.security = security
        self.from = from
    }

    /// `smtp://host:port (starttls, as user)`: the password never appears.
    public var description: String {
        "smtp://\(host):\(port) (\(security.rawValue)\(username.map { ", as \($0)" } ?? ""), from \(from))"
    }
}
