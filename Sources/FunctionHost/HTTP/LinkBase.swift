import HTTPTypes

/// Where the links and URLs the server hands out point. Never the request's `Host` (nor
/// `X-Forwarded-Proto`): a client writes those, and a password-reset link built from them
/// sends its token to whatever host the client named.
enum LinkBase {
    /// The start of links in emails: the configured public URL; without one, emailing links is
    /// refused (400, code 1), since no address the server can see is one a person should open.
    static func forEmail(publicURL: String?) throws -> String {
        guard let publicURL else { throw missingPublicURL }
        return publicURL
    }

    /// The start of file URLs: the configured public URL, else the address the connection
    /// reached this server at.
    static func forFiles(publicURL: String?, context: HostRequestContext) -> String {
        publicURL ?? context.serverAddress ?? "http://localhost"
    }

    /// What a request that would email a link is answered when no public URL is configured.
    static let missingPublicURL = HostError(
        status: .badRequest, code: 1,
        message:
            "Email links are off: this server has no public URL to put in them. Start it with --public-url https://your.domain (or FUNCTIONHOST_PUBLIC_URL).")
}
