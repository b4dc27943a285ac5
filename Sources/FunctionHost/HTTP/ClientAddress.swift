import Foundation
import Hummingbird

/// The address of the client behind a request.
///
/// `X-Forwarded-For` and `X-Real-IP` are believed only from the proxies the operator named
/// (`--trusted-proxies`); from any other peer they are whatever the client wrote, and a rate limit
/// or `meta.remoteAddress` keyed on them would be the client's choice.
enum ClientAddress {
    /// The client behind `peer`. `X-Forwarded-For` is read from the right: each trusted proxy
    /// appends the address it was connected from, so the rightmost address no trusted proxy
    /// wrote is the client (what a client put at the left itself is skipped). A hop may carry
    /// the client's port (`203.0.113.9:5555`, `[2001:db8::1]:443`, as IIS ARR and Azure
    /// Application Gateway write it): it is that address. `X-Real-IP` is taken when there is no
    /// `X-Forwarded-For`, or when the part of it a trusted proxy would have written holds
    /// something that isn't an address (a proxy that writes `unknown`, a broken list): the
    /// trusted proxy's `X-Real-IP` then says who connected to it, as LeanEngine reads it first.
    /// A malformed `X-Real-IP` names no one either: the peer it is.
    static func resolve(peer: String?, headers: HTTPFields, trusting proxies: TrustedProxies) -> String? {
        guard let peer, proxies.contains(peer) else { return peer }
        let forwarded = headers[values: .forwardedFor]
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if !forwarded.isEmpty {
            var client = peer
            for hop in forwarded.reversed() {
                guard proxies.contains(client) else { return client }
                guard let address = address(ofHop: hop) else { return realIP(headers) ?? peer }
                client = address
            }
            return client
        }
        return realIP(headers) ?? peer
    }

    /// The address an `X-Forwarded-For` hop names: an address, or one with its port after it
    /// (IPv6 then in brackets, since a bare IPv6 address already holds colons); nil for anything
    /// else. Only the port is dropped: the address is the strict literal it always had to be.
    static func address(ofHop hop: String) -> String? {
        if IPAddress(literal: hop) != nil { return hop }
        guard let colon = hop.lastIndex(of: ":"), isPort(hop[hop.index(after: colon)...]) else { return nil }
        var host = hop[..<colon]
        if host.hasPrefix("[") {
            guard host.hasSuffix("]") else { return nil }
            host = host.dropFirst().dropLast()
            guard case .v6? = IPAddress(literal: String(host)) else { return nil }
        } else {
            guard case .v4? = IPAddress(literal: String(host)) else { return nil }
        }
        return String(host)
    }

    /// Whether `text` is a TCP port: 1 to 5 ASCII digits, at most 65535.
    private static func isPort(_ text: Substring) -> Bool {
        guard (1...5).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return false
        }
        return Int(text).map { $0 <= 65535 } ?? false
    }

    /// `X-Real-IP` when it holds one address.
    private static func realIP(_ headers: HTTPFields) -> String? {
        guard let real = headers[.realIP]?.trimmingCharacters(in: .whitespaces), IPAddress(literal: real) != nil else { return nil }
        return real
    }
}
