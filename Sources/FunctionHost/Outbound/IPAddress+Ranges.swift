extension IPAddress {
    /// The kind of internal address this is ("loopback", "private", "cloud metadata", ...), or nil
    /// for an ordinary public address.
    ///
    /// Cloud code may reach none of these unless the allow-list names the host exactly: they are
    /// how a script would get at the host itself, the private network behind it, or a cloud
    /// provider's metadata service (credentials).
    var internalRange: String? {
        switch self {
        case .v4(let value):
            return Self.v4Ranges.first { $0.contains(value) }?.name
        case .v6(let high, let low):
            return v6Range(high: high, low: low)
        }
    }

    /// An IPv4 block: `prefix/length` and what it is.
    private struct V4Range {
        /// The block's first address.
        let prefix: UInt32
        /// How many leading bits are fixed.
        let length: UInt32
        /// What the block is, for the error message.
        let name: String

        /// Whether `address` lies in the block.
        func contains(_ address: UInt32) -> Bool {
            let mask: UInt32 = length == 0 ? 0 : ~0 << (32 - length)
            return address & mask == prefix & mask
        }
    }

    /// The IPv4 blocks that are not the public internet. Order matters: the metadata address is
    /// named before the link-local block that contains it.
    private static let v4Ranges: [V4Range] = [
        V4Range(prefix: 0x0000_0000, length: 8, name: "unspecified"),  // 0.0.0.0/8
        V4Range(prefix: 0x0A00_0000, length: 8, name: "private"),  // 10.0.0.0/8
        V4Range(prefix: 0x6440_0000, length: 10, name: "shared (CGNAT)"),  // 100.64.0.0/10, Alibaba's metadata too
        V4Range(prefix: 0x7F00_0000, length: 8, name: "loopback"),  // 127.0.0.0/8
        V4Range(prefix: 0xA9FE_A9FE, length: 32, name: "cloud metadata"),  // 169.254.169.254
        V4Range(prefix: 0xA9FE_0000, length: 16, name: "link-local"),  // 169.254.0.0/16
        V4Range(prefix: 0xAC10_0000, length: 12, name: "private"),  // 172.16.0.0/12
        V4Range(prefix: 0xC000_0000, length: 24, name: "reserved"),  // 192.0.0.0/24, Oracle's metadata too
        V4Range(prefix: 0xC0A8_0000, length: 16, name: "private"),  // 192.168.0.0/16
        V4Range(prefix: 0xC612_0000, length: 15, name: "reserved"),  // 198.18.0.0/15, benchmarking
        V4Range(prefix: 0xE000_0000, length: 4, name: "multicast"),  // 224.0.0.0/4
        V4Range(prefix: 0xF000_0000, length: 4, name: "reserved"),  // 240.0.0.0/4 and broadcast
    ]

    /// The IPv6 classification. Addresses that embed an IPv4 address (mapped, NAT64, 6to4) are
    /// judged by the embedded one, so `::ffff:127.0.0.1` is as loopback as `127.0.0.1`.
    private func v6Range(high: UInt64, low: UInt64) -> String? {
        let embedded = UInt32(truncatingIfNeeded: low)
        switch high {
        case 0 where low == 0: return "unspecified"
        case 0 where low == 1: return "loopback"
        case 0 where low >> 32 == 0xFFFF: return IPAddress.v4(embedded).internalRange  // ::ffff:0:0/96
        case 0x0064_FF9B_0000_0000 where low >> 32 == 0: return IPAddress.v4(embedded).internalRange  // 64:ff9b::/96
        default: break
        }
        let top16 = high >> 48
        if top16 == 0x2002 {  // 6to4, 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
            return IPAddress.v4(UInt32(truncatingIfNeeded: high >> 16)).internalRange
        }
        if high >> 16 == 0x0064_FF9B_0001 { return "private" }  // 64:ff9b:1::/48, local-use NAT64
        if high >> 56 == 0 { return "reserved" }  // ::/8: IPv4-compatible and other legacy forms
        if high >> 57 == 0x7E { return "unique-local" }  // fc00::/7, AWS's fd00:ec2::254 metadata too
        if top16 & 0xFFC0 == 0xFE80 { return "link-local" }  // fe80::/10
        if top16 & 0xFFC0 == 0xFEC0 { return "site-local" }  // fec0::/10, deprecated but routable inside
        if high >> 56 == 0xFF { return "multicast" }  // ff00::/8
        if high == 0x0100_0000_0000_0000 { return "reserved" }  // 100::/64, discard-only
        return nil
    }
}
