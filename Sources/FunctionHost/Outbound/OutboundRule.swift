import Foundation

/// One allow-list entry: which hosts, on which port.
///
/// Entries are written `example.com`, `*.example.com`, `*`, `10.0.0.5`, `[::1]` or `::1`, each
/// optionally followed by `:port`; without a port every port is allowed.
struct OutboundRule: Sendable, Hashable, CustomStringConvertible {
    /// The hosts an entry covers.
    enum Hosts: Sendable, Hashable {
        /// `*`: every host, but never an internal address.
        case any
        /// `*.example.com`: every subdomain of the name, at any depth, but not the name itself, and
        /// never an internal address.
        case subdomains(of: String)
        /// One host, named exactly: the only kind of entry that lets cloud code reach an internal
        /// address (the name may resolve to one, or the entry is the internal IP itself).
        case exactly(OutboundHost)
    }

    /// The hosts.
    let hosts: Hosts
    /// The one port allowed, or nil for all.
    let port: Int?

    /// Parses an entry (surrounding space and letter case don't matter).
    init(parsing entry: String) throws(OutboundHTTPError) {
        let text = entry.trimmingCharacters(in: .whitespaces).lowercased()
        guard !text.contains("/") else { throw .invalidPolicy(entry, "give a host name, not a URL") }
        let (hostText, portText) = Self.split(text)
        if let portText {
            guard let port = Int(portText), (1...65535).contains(port) else {
                throw .invalidPolicy(entry, "the port must be a number from 1 to 65535")
            }
            self.port = port
        } else {
            port = nil
        }
        if hostText == "*" {
            hosts = .any
        } else if hostText.hasPrefix("*.") {
            var domain = String(hostText.dropFirst(2))
            if domain.hasSuffix(".") { domain.removeLast() }
            guard OutboundHost.isValidName(domain), IPAddress(literal: domain) == nil else {
                throw .invalidPolicy(entry, "a wildcard must be followed by a domain name")
            }
            hosts = .subdomains(of: domain)
        } else if !hostText.contains("*"), let host = OutboundHost(hostText) {
            hosts = .exactly(host)
        } else {
            throw .invalidPolicy(entry, "not a host name, IP address or '*.domain' wildcard")
        }
    }

    /// Splits `host:port`, `[v6]:port`, `[v6]` and a bare IPv6 address (several colons, no port).
    private static func split(_ text: String) -> (host: String, port: String?) {
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let rest = text[text.index(after: close)...]
            let host = String(text[...close])
            return rest.hasPrefix(":") ? (host, String(rest.dropFirst())) : (host, rest.isEmpty ? nil : String(rest))
        }
        let colons = text.count { $0 == ":" }
        guard colons == 1, let colon = text.firstIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// Whether the entry covers `host` on `port`.
    func matches(_ host: OutboundHost, port: Int) -> Bool {
        if let allowed = self.port, allowed != port { return false }
        switch hosts {
        case .any: return true
        case .subdomains(let domain):
            guard case .name(let name) = host else { return false }
            return name.hasSuffix("." + domain)
        case .exactly(let allowed): return allowed == host
        }
    }

    /// Whether the entry names its host exactly (see `Hosts.exactly`).
    var isExact: Bool {
        if case .exactly = hosts { return true }
        return false
    }

    /// The entry in its normalised form.
    var description: String {
        let host: String
        switch hosts {
        case .any: host = "*"
        case .subdomains(let domain): host = "*." + domain
        case .exactly(let exact): host = exact.urlHost
        }
        return port.map { "\(host):\($0)" } ?? host
    }
}
