import Foundation

/// A request URL taken apart and checked: http or https, a host, a port, a path.
///
/// The URL handed to the HTTP client is rebuilt from these parts rather than passed through, so
/// the client connects to exactly the host that was checked, whatever odd forms the original
/// text used (percent-encoded hosts, user info, fragments are refused or dropped here).
struct OutboundTarget: Sendable, Hashable {
    /// The two schemes cloud code may use.
    enum Scheme: String, Sendable {
        case http, https

        /// 80 or 443.
        var defaultPort: Int { self == .http ? 80 : 443 }
    }

    /// The scheme.
    let scheme: Scheme
    /// The host.
    let host: OutboundHost
    /// The port, explicit or the scheme's default.
    let port: Int
    /// The percent-encoded path (at least `/`) and query.
    let pathAndQuery: String

    /// Parses an absolute URL.
    init(url text: String) throws(OutboundHTTPError) {
        guard let components = URLComponents(string: text) else {
            throw .invalidURL(text, "it can't be parsed")
        }
        guard let schemeText = components.scheme else {
            throw .invalidURL(text, "it must be absolute (http:// or https://)")
        }
        guard let scheme = Scheme(rawValue: schemeText.lowercased()) else {
            throw .invalidURL(text, "only http and https are allowed, not '\(schemeText)'")
        }
        guard let hostText = components.percentEncodedHost, !hostText.isEmpty else {
            throw .invalidURL(text, "it has no host")
        }
        guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil else {
            throw .invalidURL(text, "credentials in the URL are not allowed; send an Authorization header")
        }
        guard let host = OutboundHost(hostText) else {
            throw .invalidURL(text, "'\(hostText)' is not a host name or IP address (give international names in punycode)")
        }
        // A port too long for an integer parses as none: it must not become the scheme's own.
        if components.port == nil, let written = components.rangeOfPort, !text[written].isEmpty {
            throw .invalidURL(text, "the port must be from 1 to 65535")
        }
        let port = components.port ?? scheme.defaultPort
        guard (1...65535).contains(port) else {
            throw .invalidURL(text, "the port must be from 1 to 65535")
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        self.scheme = scheme
        self.host = host
        self.port = port
        self.pathAndQuery = path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// `host` or `host:port` (the port only when it isn't the default): the Host header, and how
    /// errors name the destination.
    var authority: String {
        port == scheme.defaultPort ? host.urlHost : "\(host.urlHost):\(port)"
    }

    /// The URL, normalised.
    var url: String { "\(scheme.rawValue)://\(authority)\(pathAndQuery)" }

    /// The URL with the host replaced by one of its checked addresses, so the connection goes to
    /// that address and not to whatever a second DNS lookup might return.
    func url(connectingTo address: IPAddress) -> String {
        "\(scheme.rawValue)://\(address.urlHost):\(port)\(pathAndQuery)"
    }

    /// Whether `other` has the same scheme, host and port (credentials don't follow a redirect
    /// to another origin).
    func isSameOrigin(as other: OutboundTarget) -> Bool {
        scheme == other.scheme && host == other.host && port == other.port
    }
}
