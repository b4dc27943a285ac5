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

    /// The API's mounts: its two versions, and the console's.
    static let prefixes = ["/1.1/", "/1/", "/console/api/1.1/"]

    /// The limit for a request to `path`.
    func limit(forPath path: String) -> Int {
        // An ASCII path is read byte by byte, where a byte is a character (every request asks).
        if let limit = path.utf8.withContiguousStorageIfAvailable(asciiLimit), let limit { return limit }
        var route = Substring(path)
        for prefix in Self.prefixes where route.hasPrefix(prefix) {
            route = route.dropFirst(prefix.count)
            break
        }
        if route.hasPrefix("batch") || route.hasPrefix("engine/deploys") { return largest }
        if route.hasPrefix("functions/") || route.hasPrefix("call/") { return min(largest, Self.functionCall) }
        return min(largest, Self.other)
    }

    /// `limit(forPath:)` for an ASCII path's bytes; nil for any other.
    private func asciiLimit(_ path: UnsafeBufferPointer<UInt8>) -> Int? {
        guard path.allSatisfy({ $0 < 0x80 }) else { return nil }
        var route = path[...]
        for prefix in Self.prefixes where route.starts(with: prefix.utf8) {
            route = route.dropFirst(prefix.utf8.count)
            break
        }
        if route.starts(with: "batch".utf8) || route.starts(with: "engine/deploys".utf8) { return largest }
        if route.starts(with: "functions/".utf8) || route.starts(with: "call/".utf8) { return min(largest, Self.functionCall) }
        return min(largest, Self.other)
    }
}
