import AsyncHTTPClient
import DataAPI
import Foundation
import NIOCore
import NIOHTTP1

/// ListObjectsV2 over a bucket's prefix, a page at a time: what `files sweep` reads. A type of
/// its own beside `S3Client` (it addresses the bucket, not an object), signing as it does.
struct S3Listing: Sendable {
    let settings: S3Settings

    /// The most keys one page asks for (S3's own largest page).
    static let pageSize = 1000
    /// The most of one page's XML that is read: 1 000 keys of at most ~1 KB each.
    static let answerLimit = 4 * 1024 * 1024

    /// The objects whose names start with the prefix, after `cursor` (a key, the prefix taken
    /// off), in key order, at most `limit` of them; each with its size and when it was written.
    func page(after cursor: String?, limit: Int) async throws(S3Error) -> [StoredKey] {
        let path = settings.pathStyle ? "/\(settings.bucket)" : "/"
        var query = [("list-type", "2"), ("max-keys", String(min(limit, Self.pageSize)))]
        if !settings.prefix.isEmpty { query.append(("prefix", settings.prefix)) }
        if let cursor { query.append(("start-after", settings.prefix + cursor)) }
        let signer = SigV4(accessKey: settings.accessKey, secretKey: settings.secretKey, region: settings.region)
        let signed = SigV4.Request(method: "GET", host: settings.host, path: path, query: query)
        var request = HTTPClientRequest(url: settings.url(path: path, query: SigV4.canonicalQuery(query)))
        for (name, value) in signer.headers(for: signed, at: Date()) { request.headers.add(name: name, value: value) }
        let text: String
        let status: UInt
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: S3Client.timeout)
            status = response.status.code
            text = String(buffer: try await response.body.collect(upTo: Self.answerLimit))
        } catch {
            throw S3Error(.unreachable, "The S3 endpoint \(settings.endpoint) could not be reached: \(error)")
        }
        guard (200..<300).contains(status) else {
            let code = S3Client.element("Code", in: text) ?? "HTTP \(status)"
            throw S3Error(code == "NoSuchBucket" ? .noSuchBucket : .unexpected, "ListObjectsV2 failed with \(code)")
        }
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
