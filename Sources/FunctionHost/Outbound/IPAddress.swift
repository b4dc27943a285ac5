#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 address, as the allow-list and the address checks compare them.
enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// An IPv4 address, most significant byte first (`127.0.0.1` is `0x7F00_0001`).
    case v4(UInt32)
    /// An IPv6 address: the high and the low 64 bits.
    case v6(UInt64, UInt64)

    /// Parses the strict textual forms only (dotted quad, RFC 4291 IPv6), so `127.1` or
    /// `0x7f.0.0.1` are not literals here: they are treated as names and resolved, and the
    /// resolved address is what gets checked.
    init?(literal: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, literal, &v6) == 1 {
            self.init(bytes: withUnsafeBytes(of: &v6) { Array($0) })
            return
        }
        return nil
    }

    /// The address a `sockaddr_in` or `sockaddr_in6` holds; nil for other families.
    init?(socketAddress: UnsafePointer<sockaddr>) {
        switch Int32(socketAddress.pointee.sa_family) {
        case AF_INET:
            let address = UnsafeRawPointer(socketAddress).loadUnaligned(as: sockaddr_in.self)
            self = .v4(UInt32(bigEndian: address.sin_addr.s_addr))
        case AF_INET6:
            var address = UnsafeRawPointer(socketAddress).loadUnaligned(as: sockaddr_in6.self)
            self.init(bytes: withUnsafeBytes(of: &address.sin6_addr) { Array($0) })
        default:
            return nil
        }
    }

    /// An IPv6 address from its 16 bytes in network order.
    private init(bytes: [UInt8]) {
        let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        self = .v6(high, low)
    }

    /// The canonical text (`127.0.0.1`, `::1`).
    var description: String {
        switch self {
        case .v4(let value):
            return (0..<4).map { String((value >> (24 - 8 * UInt32($0))) & 0xFF) }.joined(separator: ".")
        case .v6(let high, let low):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { bytes in
                for index in 0..<8 {
                    bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
                    bytes[index + 8] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
                }
            }
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return "::" }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// The form a URL's authority needs: IPv6 in brackets.
    var urlHost: String {
        if case .v6 = self { return "[\(description)]" }
        return description
    }
}
