import Foundation
import Hummingbird

/// The address of the client behind a request.
///
/// `X-Real-IP` or the first `X-Forwarded-For` address are believed only from a proxy on the
/// same machine or a private network (nginx or a load balancer in front); from anywhere else they
/// are whatever the client wrote, and a rate limit keyed on them would be no limit.
enum ClientAddress {
    static func of(_ request: Request, _ context: HostRequestContext) -> String? {
        guard let peer = context.remoteAddress else { return nil }
        guard isProxy(peer) else { return peer }
        if let real = request.headers[.realIP] { return real }
        if let forwarded = request.headers[.forwardedFor] {
            return forwarded.split(separator: ",").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? peer
        }
        return peer
    }

    /// Loopback and private (RFC 1918, unique local IPv6) addresses: where a proxy would be.
    static func isProxy(_ address: String) -> Bool {
        if address == "::1" || address.hasPrefix("127.") || address.hasPrefix("10.") || address.hasPrefix("192.168.") {
            return true
        }
        if address.hasPrefix("fc") || address.hasPrefix("fd") || address.hasPrefix("::ffff:127.") { return true }
        let parts = address.split(separator: ".")
        if parts.count == 4, parts[0] == "172", let second = Int(parts[1]), (16...31).contains(second) { return true }
        return false
    }
}
