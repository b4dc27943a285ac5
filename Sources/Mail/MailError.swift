/// Why a mail wasn't sent: the module's one error type. The sender answers the client with
/// DataAPI's 602 (or 125 for an address it can't write) whatever the kind; the kind decides
/// whether another attempt may succeed.
public struct MailError: Error, Sendable, CustomStringConvertible {
    /// Whether trying again may help.
    public enum Kind: Sendable, Hashable {
        /// A refused connection, a timeout, a 4xx reply: another attempt may succeed.
        case transient
        /// A 5xx reply, a TLS or authentication failure, a server that breaks the protocol:
        /// the same message would fail the same way.
        case permanent
        /// A recipient or value the message can't be written with.
        case invalidInput
    }

    /// Whether trying again may help.
    public let kind: Kind
    /// What happened, for the log and the client's message (never a password or a body).
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
