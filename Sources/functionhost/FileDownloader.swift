import AsyncHTTPClient
import DataAPI
import Foundation
import NIOCore
import NIOHTTP1

/// Fetches files' bytes from their old urls for `import --download-files`: each into a `.part`
/// file, renamed to its key once complete, so an interrupted download is never taken for a file.
struct FileDownloader: Sendable {
    let client: HTTPClient

    /// How long one file may take.
    static let timeout: TimeAmount = .minutes(10)

    /// Settings for downloads: redirects followed (file domains use them), no retry of a refused
    /// connection (a dead domain fails at once, file after file).
    static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: 5, allowCycles: false), timeout: .init(connect: .seconds(10)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return configuration
    }

    /// Writes what `url` answers to `destination`; throws on a non-200 answer.
    func download(_ url: String, to destination: String) async throws {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: Self.timeout)
        guard response.status == .ok else { throw DataAPIError(.importFailure, "HTTP \(response.status.code)") }
        let partial = destination + ".part"
        guard FileManager.default.createFile(atPath: partial, contents: nil),
            let handle = FileHandle(forWritingAtPath: partial)
        else { throw DataAPIError(.importFailure, "can't write \(partial)") }
        do {
            for try await buffer in response.body {
                try handle.write(contentsOf: Data(buffer.readableBytesView))
            }
            try handle.close()
            try FileManager.default.moveItem(atPath: partial, toPath: destination)
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: partial)
            throw error
        }
    }
}
