import Hummingbird
import JSON

/// LeanCloud's realtime router, `GET /v1/route` (no API version, no app keys: the JS and C#
/// SDKs send none): where the realtime endpoint is, `{"server","secondary","ttl"}`. Its URL is
/// built from the configured public URL (`https` becomes `wss`), else from the address the
/// connection reached; never from the request's `Host`, which the client writes (a lookup
/// answered from it would send a client's socket wherever a forged header said).
struct RealtimeRouteLookup: Sendable {
    /// How long the SDKs may keep the answer, in seconds.
    static let ttl: Int64 = 3600

    let publicURL: String?

    func register(on router: Router<HostRequestContext>) {
        router.get("v1/route") { _, context in
            let server = Self.endpointURL(base: LinkBase.forFiles(publicURL: publicURL, context: context))
            // One host: the secondary is the same endpoint (the SDKs alternate between the two).
            return JSONResponse(["server": .string(server), "secondary": .string(server), "ttl": .int(Self.ttl)])
        }
    }

    /// The WebSocket URL of the endpoint under an `http(s)://` base.
    static func endpointURL(base: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        if base.hasPrefix("https://") {
            base = "wss://" + base.dropFirst("https://".count)
        } else if base.hasPrefix("http://") {
            base = "ws://" + base.dropFirst("http://".count)
        }
        return base + RealtimeEndpoint.path
    }
}
