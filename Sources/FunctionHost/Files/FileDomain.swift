public import DataAPI
import Foundation

/// A host name of its own for files (`--files-url https://files.example.com`): new files' URLs
/// are `<url>/<key>` (LeanCloud's form, `https://<files domain>/<key>`), and requests whose `Host`
/// names it are answered with files only (`FileDomainMiddleware`). An app's old LeanCloud file
/// URLs, stored in its objects, keep working once its files are imported under the same keys and
/// the domain points here; the API's host name keeps its own routes.
public struct FileDomain: Sendable, Equatable {
    /// The URL files are served under, without a trailing `/`: `https://files.example.com`.
    public let base: String
    /// Its host name, lowercased, without a port: what a request's `Host` is compared with.
    public let hostName: String

    /// The longest URL taken: a host name is at most 253 characters.
    static let maxLength = 300

    /// The domain of `url`; nil unless it is an http(s) URL with a host and nothing else (no
    /// path, query, fragment or credentials): keys go right after it, as on LeanCloud.
    public init?(url: String) {
        var text = url
        while text.hasSuffix("/") { text.removeLast() }
        guard text.utf8.count <= Self.maxLength, let parsed = URLComponents(string: text),
            let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = parsed.host, !host.isEmpty, parsed.path.isEmpty, parsed.query == nil, parsed.fragment == nil,
            parsed.user == nil, parsed.password == nil,
            host.utf8.allSatisfy({ $0 < 0x80 && $0 > 0x20 })
        else { return nil }
        base = text
        hostName = Self.name(host)
    }

    /// A host name as compared: lowercased, without the trailing dot of a fully qualified name
    /// (`files.example.com.` is the same host, and a browser may send it so).
    public static func name(_ host: String) -> String {
        var name = host.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        return name
    }

    /// Whether a request's `Host` (`:authority`) names this domain: its name compared
    /// case-insensitively, any port (a proxy in front may listen on another).
    func matches(authority: String?) -> Bool {
        guard let authority else { return false }
        return Self.name(EngineWebRoutes.hostName(authority)) == hostName
    }

    /// New files' URLs: `<base>/<key>`, or `<base>/<key>/<name>` to keep the file's name.
    public var urls: FileURLs {
        FileURLs { [base] key, name in
            guard let name else { return "\(base)/\(key)" }
            return "\(base)/\(key)/\(FileURLs.percentEncoded(name))"
        }
    }
}
