import DataAPI
import Foundation

/// ListObjectsV2 over a bucket's prefix, a page at a time: what `files sweep` and `files
/// migrate` read. A type of its own beside `S3Client`'s object operations (it addresses the
/// bucket, not an object), sent and signed through the same client.
struct S3Listing: Sendable {
    let client: S3Client

    /// The most keys one page asks for (S3's own largest page).
    static let pageSize = 1000
    /// The most of one page's XML that is read: 1 000 keys of at most ~1 KB each.
    static let answerLimit = 4 * 1024 * 1024

    /// The objects whose names start with the prefix, after `cursor` (a key, the prefix taken
    /// off), in key order, at most `limit` of them; each with its size and when it was written.
    func page(after cursor: String?, limit: Int) async throws(S3Error) -> [StoredKey] {
        let settings = client.settings
        var query = [("list-type", "2"), ("max-keys", String(min(limit, Self.pageSize)))]
        if !settings.prefix.isEmpty { query.append(("prefix", settings.prefix)) }
        if let cursor { query.append(("start-after", settings.prefix + cursor)) }
        let response = try await client.send("GET", path: settings.pathStyle ? "/\(settings.bucket)" : "/", query: query)
        let text = try await S3Client.expect(response, "ListObjectsV2", limit: Self.answerLimit)
        return Self.contents(of: text, prefix: settings.prefix)
    }

    /// The `<Contents>` entries of a ListObjectsV2 answer, their names without `prefix`.
    static func contents(of xml: String, prefix: String) -> [StoredKey] {
        var found: [StoredKey] = []
        var rest = xml[...]
        while let open = rest.range(of: "<Contents>"), let close = rest.range(of: "</Contents>", range: open.upperBound..<rest.endIndex) {
            let entry = String(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
            guard let name = S3Client.element("Key", in: entry), name.hasPrefix(prefix),
                let size = S3Client.element("Size", in: entry).flatMap(Int.init)
            else { continue }
            let modified = S3Client.element("LastModified", in: entry).flatMap(ISODate.milliseconds(from:)).map {
                Date(timeIntervalSince1970: Double($0) / 1000)
            }
            found.append(StoredKey(key: String(name.dropFirst(prefix.count)), size: size, modified: modified ?? .distantPast))
        }
        return found
    }
}
