import AsyncHTTPClient
import DataAPI
import Foundation
import NIOCore
import NIOHTTP1

/// Fetches files' bytes from their old urls for `import --download-files`, streamed into the
/// host's file store as they arrive (a part at a time for a bucket), so a large file is never
/// held whole; an interrupted download leaves nothing under its key.
struct FileDownloader: Sendable {
    let client: HTTPClient

    /// How long one file may take.
    static let timeout: TimeAmount = .minutes(10)
    /// The most one file may be: S3's own limit for one object (5 TiB).
    static let maxBytes = 5 * 1024 * 1024 * 1024 * 1024

    /// Settings for downloads: redirects followed (file domains use them), no retry of a refused
    /// connection (a dead domain fails at once, file after file).
    static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 5, allowCycles: false), timeout: .init(connect: .seconds(10), read: .seconds(60)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// Appends what `url` answers to `upload`; throws on a non-200 answer or a body past
    /// `maxBytes`.
    func download(_ url: String, into upload: any FileContentUpload) async throws {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: Self.timeout)
        guard response.status == .ok else { throw DataAPIError(.importFailure, "HTTP \(response.status.code)") }
        let bounded = BoundedUpload(inner: upload, limit: Self.maxBytes, refusal: DataAPIError(.importFailure, "more than \(Self.maxBytes) bytes"))
        for try await buffer in response.body {
            try await bounded.append(buffer)
        }
    }
}
