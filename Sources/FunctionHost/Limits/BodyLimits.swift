/// The largest request body each kind of route reads: what its work can need, so a client can't
/// make the host hold megabytes to answer a login. File uploads are streamed to disk and have
/// their own limit (`--max-file-size`).
struct BodyLimits: Sendable {
    /// Batches and deploys: many objects, or every file of an app's cloud code.
    let largest: Int

    /// Function and rpc calls: their parameters.
    static let functionCall = 8 << 20
    /// Everything else: one object (at most 128 KB stored), a query, a login.
    static let other = 1 << 20

    /// The limit for a request to `path`.
    func limit(forPath path: String) -> Int {
        var route = Substring(path)
        for prefix in ["/1.1/", "/1/"] where route.hasPrefix(prefix) {
            route = route.dropFirst(prefix.count)
            break
        }
        if route.hasPrefix("batch") || route.hasPrefix("engine/deploys") { return largest }
        if route.hasPrefix("functions/") || route.hasPrefix("call/") { return min(largest, Self.functionCall) }
        return min(largest, Self.other)
    }
}
