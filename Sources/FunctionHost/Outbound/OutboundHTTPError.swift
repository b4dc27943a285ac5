/// Why an outbound HTTP request from cloud code was refused or failed, as the script sees it:
/// a LeanCloud-style `code` and a `message` for the developer.
///
/// Codes: 1 for anything the policy or the request itself rules out (LeanCloud's generic code),
/// 100 when the remote host can't be reached (LeanCloud's "connection failed"), 124 when the
/// deadline passes (LeanCloud's "request timed out").
public struct OutboundHTTPError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, for code that must tell the cases apart.
    public enum Kind: Sendable, Hashable {
        /// The URL can't be parsed, has no host, carries credentials, or isn't http/https.
        case invalidURL
        /// The method, a header or the body is not acceptable.
        case invalidRequest
        /// The host (and port) is not on the environment's allow-list.
        case hostNotAllowed
        /// The host is, or resolves to, a private, loopback or otherwise internal address that the
        /// allow-list doesn't name exactly.
        case addressRefused
        /// More redirects than allowed.
        case tooManyRedirects
        /// The deadline passed before the response was read.
        case timedOut
        /// The response body is larger than the policy allows.
        case responseTooLarge
        /// The host could not be resolved or reached, or the exchange broke off.
        case connectionFailed
        /// An allow-list entry in the configuration can't be understood.
        case invalidPolicy
    }

    /// Which case this is.
    public var kind: Kind
    /// The LeanCloud-style code the script sees.
    public var code: Int
    /// What went wrong, for the developer.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, code: Int, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    /// The message, so the error reads well in logs and on the command line.
    public var description: String { message }
}

extension OutboundHTTPError {
    /// A URL that can't be used, with the reason.
    static func invalidURL(_ url: String, _ reason: String) -> Self {
        Self(.invalidURL, code: 1, message: "Invalid URL '\(url)': \(reason).")
    }

    /// A request that can't be sent, with the reason.
    static func invalidRequest(_ reason: String) -> Self {
        Self(.invalidRequest, code: 1, message: "Invalid HTTP request: \(reason).")
    }

    /// A host (and port) missing from the allow-list.
    static func hostNotAllowed(_ authority: String) -> Self {
        Self(
            .hostNotAllowed, code: 1,
            message: "HTTP requests to '\(authority)' are not allowed; add the host to this environment's allow-list.")
    }

    /// A host that is or resolves to an internal address.
    static func addressRefused(host: String, address: String, range: String) -> Self {
        let subject = host == address ? "'\(host)'" : "'\(host)' (\(address))"
        return Self(
            .addressRefused, code: 1,
            message: "HTTP requests to \(subject) are refused: it is a \(range) address; "
                + "list this exact host in the allow-list to reach it.")
    }

    /// A redirect chain longer than `limit`.
    static func tooManyRedirects(_ limit: Int) -> Self {
        Self(.tooManyRedirects, code: 1, message: "Too many redirects (more than \(limit)).")
    }

    /// The deadline has passed.
    static let timedOut = Self(.timedOut, code: 124, message: "The HTTP request timed out.")

    /// A body over the policy's limit.
    static func responseTooLarge(limit: Int) -> Self {
        Self(.responseTooLarge, code: 1, message: "The HTTP response body is larger than \(limit) bytes.")
    }

    /// A host that can't be resolved or reached, with the reason.
    static func connectionFailed(_ authority: String, _ reason: String) -> Self {
        Self(.connectionFailed, code: 100, message: "Could not complete the HTTP request to '\(authority)': \(reason).")
    }

    /// An allow-list entry that can't be understood.
    static func invalidPolicy(_ entry: String, _ reason: String) -> Self {
        Self(.invalidPolicy, code: 1, message: "Invalid HTTP allow-list entry '\(entry)': \(reason).")
    }
}
