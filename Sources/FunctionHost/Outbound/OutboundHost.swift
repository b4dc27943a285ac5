/// The host part of a URL or of an allow-list entry, normalised for comparison: a lowercase DNS
/// name without its trailing dot, or an IP address.
enum OutboundHost: Sendable, Hashable, CustomStringConvertible {
    /// A DNS name (`api.example.com`), which must be resolved before it is checked.
    case name(String)
    /// An IP literal (`127.0.0.1`, `::1`).
    case address(IPAddress)

    /// Parses a host as it appears in a URL or an entry: a name, a dotted quad, or an IPv6
    /// address (bracketed or not). Nil for anything else, including percent-encoded or non-ASCII
    /// names: those must arrive in their ASCII (punycode) form, so that what is checked is exactly
    /// what is resolved.
    init?(_ text: String) {
        if text.hasPrefix("[") {
            let inside = String(text.dropFirst().dropLast())
            guard text.hasSuffix("]"), case .v6(let high, let low)? = IPAddress(literal: inside) else { return nil }
            self = .address(.v6(high, low))
            return
        }
        var name = text.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if let address = IPAddress(literal: name) {
            self = .address(address)
            return
        }
        guard Self.isValidName(name) else { return nil }
        self = .name(name)
    }

    /// Whether `name` is a DNS name: dot-separated labels of 1–63 letters, digits, `-` or `_`,
    /// 253 characters at most.
    static func isValidName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 253 else { return false }
        return name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            (1...63).contains(label.utf8.count)
                && label.utf8.allSatisfy { byte in
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                        || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                }
        }
    }

    /// The name, or the address's canonical text.
    var description: String {
        switch self {
        case .name(let name): return name
        case .address(let address): return address.description
        }
    }

    /// The form a URL's authority needs (IPv6 in brackets).
    var urlHost: String {
        switch self {
        case .name(let name): return name
        case .address(let address): return address.urlHost
        }
    }
}
