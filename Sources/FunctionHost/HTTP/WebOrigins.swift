import Foundation

/// The origins web clients may call the API from: LeanCloud's "Web security domains". Every
/// origin by default (as before the list existed); with a list, a page elsewhere gets no CORS
/// grant and its app-key requests are refused (403), while requests without an `Origin` (server
/// SDKs, curl, mobile apps) and master-key requests are not a web page's and pass.
public struct WebOrigins: Sendable, Hashable, CustomStringConvertible {
    /// One entry: an exact origin, or every subdomain of a host (`https://*.example.com`).
    struct Entry: Sendable, Hashable {
        var scheme: String
        var host: String
        var port: Int?
        var subdomains: Bool
    }

    /// nil: every origin.
    let entries: [Entry]?

    /// Every origin, the default.
    public static let any = WebOrigins(entries: nil)

    private init(entries: [Entry]?) {
        self.entries = entries
    }

    /// Reads a comma-separated list: `https://example.com`, `http://localhost:8080`,
    /// `https://*.example.com` (its subdomains, not itself); `*` alone is every origin. Nil when
    /// an entry is no origin (a path, no scheme, a wildcard elsewhere than the first label).
    public init?(list: String) {
        let items = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !items.isEmpty else { return nil }
        if items == ["*"] {
            self = .any
            return
        }
        var entries: [Entry] = []
        for item in items {
            var text = item
            if text.hasSuffix("/") { text.removeLast() }
            guard var entry = Self.parse(text) else { return nil }
            if entry.host.hasPrefix("*.") {
                entry.host.removeFirst(2)
                entry.subdomains = true
            }
            guard !entry.host.isEmpty, !entry.host.contains("*") else { return nil }
            entries.append(entry)
        }
        self.entries = entries
    }

    /// The list as it is read back (`*` for every origin), for the start banner.
    public var description: String {
        guard let entries else { return "*" }
        return entries.map { entry in
            "\(entry.scheme)://\(entry.subdomains ? "*." : "")\(entry.host)" + (entry.port.map { ":\($0)" } ?? "")
        }.joined(separator: ", ")
    }

    /// Whether everything is allowed (no list).
    public var allowsEveryOrigin: Bool { entries == nil }

    /// Whether a page of `origin` (an `Origin` header) may call the API.
    public func allows(_ origin: String) -> Bool {
        guard let entries else { return true }
        guard let asked = Self.parse(origin), !asked.host.contains("*") else { return false }
        return entries.contains { entry in
            guard entry.scheme == asked.scheme, Self.port(entry) == Self.port(asked) else { return false }
            return entry.subdomains ? asked.host.hasSuffix("." + entry.host) : asked.host == entry.host
        }
    }

    /// `scheme://host[:port]`, lowercased; nil for anything else (a path, userinfo, `null`).
    private static func parse(_ text: String) -> Entry? {
        let lowered = text.lowercased()
        guard let separator = lowered.range(of: "://") else { return nil }
        let scheme = String(lowered[..<separator.lowerBound])
        let authority = String(lowered[separator.upperBound...])
        guard let first = scheme.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first),
            scheme.utf8.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
            !authority.isEmpty, !authority.contains("/"), !authority.contains("@"), !authority.contains("?"),
            !authority.contains("#")
        else { return nil }
        // The port follows the last colon outside an IPv6 literal's brackets.
        var host = authority
        var port: Int?
        if let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") {
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else { return nil }
            host = String(authority[..<colon])
            port = number
        }
        guard !host.isEmpty else { return nil }
        return Entry(scheme: scheme, host: host, port: port, subdomains: false)
    }

    /// The entry's port, the scheme's own when none is written.
    private static func port(_ entry: Entry) -> Int? {
        entry.port ?? ["http": 80, "https": 443][entry.scheme]
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
