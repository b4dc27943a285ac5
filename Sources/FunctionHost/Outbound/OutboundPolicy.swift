import Foundation

/// Where one environment's cloud code may send HTTP requests: an allow-list of hosts and a limit
/// on the size of what comes back. The default policy allows nothing.
///
/// A host must be covered by an entry (`example.com`, `*.example.com`, `*`, an IP literal, each
/// optionally with `:port`). On top of that, a host that is or resolves to an internal address
/// (private, loopback, link-local, unique-local, CGNAT, multicast, unspecified, cloud metadata)
/// is refused unless an entry names that exact host: `*` and wildcards never reach the host's
/// own network, and listing `127.0.0.1` does not make `localhost` reachable.
public struct OutboundPolicy: Sendable, Hashable, CustomStringConvertible {
    /// The response size limit unless told otherwise: 10 MB.
    public static let defaultMaxResponseSize = 10 * 1024 * 1024

    /// The entries, in the order given.
    let rules: [OutboundRule]
    /// The largest response body accepted, in bytes; a larger one fails the request.
    public var maxResponseSize: Int

    /// A policy that allows nothing.
    public init(maxResponseSize: Int = OutboundPolicy.defaultMaxResponseSize) {
        self.rules = []
        self.maxResponseSize = maxResponseSize
    }

    /// A policy allowing the hosts the entries name (see the type's documentation for the forms).
    public init(
        allowing entries: [String], maxResponseSize: Int = OutboundPolicy.defaultMaxResponseSize
    ) throws(OutboundHTTPError) {
        var rules: [OutboundRule] = []
        for entry in entries where !entry.trimmingCharacters(in: .whitespaces).isEmpty {
            rules.append(try OutboundRule(parsing: entry))
        }
        self.rules = rules
        self.maxResponseSize = maxResponseSize
    }

    /// A policy from a comma-separated list, as given on the command line or in the environment
    /// (`api.example.com, *.cdn.example.com, 10.0.0.5:8080`); an empty list allows nothing.
    public init(list: String, maxResponseSize: Int = OutboundPolicy.defaultMaxResponseSize) throws(OutboundHTTPError) {
        let entries = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        try self.init(allowing: entries, maxResponseSize: maxResponseSize)
    }

    /// Whether no host at all is allowed.
    public var allowsNothing: Bool { rules.isEmpty }

    /// The entries, normalised and comma-separated (`none` when empty), for the startup log.
    public var description: String {
        rules.isEmpty ? "none" : rules.map(\.description).joined(separator: ", ")
    }

    /// How far a policy lets a request go to a host.
    enum Access: Sendable, Hashable {
        /// The host is covered, but only its public addresses may be reached.
        case publicAddresses
        /// An entry names the host exactly: any of its addresses may be reached.
        case anyAddress
    }

    /// The access `host` on `port` gets; nil when no entry covers it. An exact entry wins over a
    /// wildcard that also matches.
    func access(to host: OutboundHost, port: Int) -> Access? {
        let matching = rules.filter { $0.matches(host, port: port) }
        if matching.isEmpty { return nil }
        return matching.contains(where: \.isExact) ? .anyAddress : .publicAddresses
    }
}
