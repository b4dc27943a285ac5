import AsyncHTTPClient
import DataAPI
import FunctionHost
import NIOCore

/// Fetches files' bytes from their old urls for `import --download-files`, streamed into the
/// host's file store as they arrive (a part at a time for a bucket), so a large file is never
/// held whole; an interrupted download leaves nothing under its key.
///
/// The urls come from the export's `_File` objects, which the app's end users could write: each
/// download goes through `OutboundHTTP`, so only public addresses are reached (every redirect
/// hop checked, the address connected to the one checked) unless the operator lists a host.
struct FileDownloader: Sendable {
    /// Where downloads may go: any host at a public address, and the hosts listed exactly.
    let policy: OutboundPolicy
    /// The client, with `configuration`.
    let http: OutboundHTTP

    /// How long one file may take.
    static let timeout: Duration = .seconds(10 * 60)

    /// A downloader reaching public addresses, and any address of the hosts `allowed` lists
    /// exactly, refusing a file past `maxBytes`.
    init(allowing allowed: String, maxBytes: Int, client: HTTPClient) throws(OutboundHTTPError) {
        policy = try Self.policy(allowing: allowed, maxBytes: maxBytes)
        http = OutboundHTTP(client: client)
    }

    /// Any host at a public address, and any address of the hosts the comma-separated `allowed`
    /// names exactly (`files.internal, 10.0.0.5:8080`: `OutboundPolicy`'s forms); a body no
    /// larger than `maxBytes`. The export's `metaData.size` can't be the bound: end users write
    /// it with the file, so an honest size is checked (`ExportFileBytes`) but a large one is
    /// not trusted.
    static func policy(allowing allowed: String, maxBytes: Int) throws(OutboundHTTPError) -> OutboundPolicy {
        try OutboundPolicy(list: "*," + allowed, maxResponseSize: maxBytes)
    }

    /// The client's settings: `OutboundHTTP`'s, with a stalled connection given up on (a file
    /// domain that stops answering fails its files one by one, not after `timeout` each) and no
    /// retry of a refused connection (a dead domain fails at once, file after file).
    static var configuration: HTTPClient.Configuration {
        var configuration = OutboundHTTP.settings
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// Appends what `url` answers to `upload`; throws on a refused address, a non-200 answer or a
    /// body past the policy's size.
    func download(_ url: String, into upload: any FileContentUpload) async throws {
        try await http.download(url, policy: policy, deadline: .now + Self.timeout) { try await upload.append($0) }
    }
}
