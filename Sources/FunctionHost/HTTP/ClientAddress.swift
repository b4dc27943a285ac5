import Foundation
import Hummingbird

/// The address of the client behind a request.
///
/// `X-Forwarded-For` and `X-Real-IP` are believed only from the proxies the operator named
/// (`--trusted-proxies`); from any other peer they are whatever the client wrote, and a rate limit
/// or `meta.remoteAddress` keyed on them would be the client's choice.
enum ClientAddress {
    /// The client of a request: what `ClientAddressMiddleware` found, else the connection's peer.
    static func of(_ request: Request, _ context: HostRequestContext) -> String? {
        context.clientAddress ?? context.remoteAddress
    }

    /// The client behind `peer`. `X-Forwarded-For` is read from the right: each trusted proxy
    /// appends the address it was connected from, so the rightmost address no trusted proxy
    /// wrote is the client (what a client put at the left itself is skipped). `X-Real-IP` is
    /// taken when there is no `X-Forwarded-For`, or when the part of it a trusted proxy would
    /// have written holds something that isn't an address (a proxy that writes `unknown`, a
    /// port, a broken list): the trusted proxy's `X-Real-IP` then says who connected to it, as
    /// LeanEngine reads it first. A malformed `X-Real-IP` names no one either: the peer it is.
    static func resolve(peer: String?, headers: HTTPFields, trusting proxies: TrustedProxies) -> String? {
        guard let peer, proxies.contains(peer) else { return peer }
        let forwarded = headers[values: .forwardedFor]
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if !forwarded.isEmpty {
            var client = peer
            for hop in forwarded.reversed() {
                guard proxies.contains(client) else { return client }
                guard IPAddress(literal: hop) != nil else { return realIP(headers) ?? peer }
                client = hop
            }
            return client
        }
        return realIP(headers) ?? peer
    }

    /// `X-Real-IP` when it holds one address.
    private static func realIP(_ headers: HTTPFields) -> String? {
        guard let real = headers[.realIP]?.trimmingCharacters(in: .whitespaces), IPAddress(literal: real) != nil else { return nil }
        return real
    }
}

/// Finds each request's client address once, before anything (the rate limit first) asks.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = HostRequestContext
    let proxies: TrustedProxies

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.clientAddress = ClientAddress.resolve(peer: context.remoteAddress, headers: request.headers, trusting: proxies)
        return try await next(request, context)
    }
}
