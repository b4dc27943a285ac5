import Foundation

/// The peers whose `X-Real-IP` and `X-Forwarded-For` are believed (`--trusted-proxies`): single
/// addresses and CIDR ranges, IPv4 and IPv6. Empty by default: a header any client can write
/// says nothing about who the client is unless a proxy the operator named wrote it.
public struct TrustedProxies: Sendable, Hashable {
    /// One entry: an address and how many of its leading bits must match.
    struct Range: Sendable, Hashable {
        let address: IPAddress
        let length: Int

        func contains(_ other: IPAddress) -> Bool {
            switch (address, other) {
            case (.v4(let mine), .v4(let theirs)):
                let mask: UInt32 = length == 0 ? 0 : ~0 << (32 - UInt32(length))
                return mine & mask == theirs & mask
            case (.v6(let myHigh, let myLow), .v6(let high, let low)):
                let highMask: UInt64 = length == 0 ? 0 : length >= 64 ? ~0 : ~0 << (64 - UInt64(length))
                let lowMask: UInt64 = length <= 64 ? 0 : length == 128 ? ~0 : ~0 << (128 - UInt64(length))
                return myHigh & highMask == high & highMask && myLow & lowMask == low & lowMask
            default:
                return false
            }
        }
    }

    /// The entries.
    let ranges: [Range]

    /// No proxy is trusted: every client is its connection's peer.
    public static let none = TrustedProxies(ranges: [])

    private init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Reads a comma-separated list (`10.0.0.5, 172.16.0.0/12, fd00::/8`); nil when an entry is
    /// not an IP address with an optional prefix length. Names are refused: resolving them at
    /// each request would let DNS decide whom to believe.
    public init?(list: String) {
        var ranges: [Range] = []
        for entry in list.split(separator: ",") {
            let text = entry.trimmingCharacters(in: .whitespaces)
            if text.isEmpty { continue }
            let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
            guard let address = IPAddress(literal: parts[0]).map(Self.unmapped) else { return nil }
            let width: Int
            if case .v4 = address { width = 32 } else { width = 128 }
            var length = width
            if parts.count == 2 {
                guard let given = Int(parts[1]), (0...width).contains(given) else { return nil }
                length = given
            }
            ranges.append(Range(address: address, length: length))
        }
        self.ranges = ranges
    }

    /// Whether no proxy is trusted.
    public var isEmpty: Bool { ranges.isEmpty }

    /// Whether the peer with this address (as the connection reports it) is a trusted proxy.
    func contains(_ text: String) -> Bool {
        guard !ranges.isEmpty, let address = IPAddress(literal: text).map(Self.unmapped) else { return false }
        return ranges.contains { $0.contains(address) }
    }

    /// An IPv4-mapped IPv6 address (`::ffff:10.0.0.5`, how a dual-stack socket reports an IPv4
    /// peer) as the IPv4 address it is, so `10.0.0.0/8` covers it.
    private static func unmapped(_ address: IPAddress) -> IPAddress {
        if case .v6(0, let low) = address, low >> 32 == 0xFFFF { return .v4(UInt32(truncatingIfNeeded: low)) }
        return address
    }
}
