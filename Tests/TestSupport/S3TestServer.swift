import AsyncHTTPClient
import NIOCore
import NIOHTTP1
package import DataAPI
import Foundation
package import S3Storage

/// A real S3-compatible server for the file tests: moto's server mode (`scripts/s3-server.sh`,
/// in a venv made on first use) on a free loopback port, with one bucket. Started per test, so
/// each test has its own objects. With `auth`, it checks every signature against its own keys
/// (a wrong secret is refused as S3 refuses it); without, it takes any, and serves presigned
/// URLs (moto checks no presigned signature).
package struct S3TestServer: Sendable {
    /// Its address, `http://127.0.0.1:PORT`.
    package let endpoint: String
    /// The bucket it made.
    package let bucket: String
    /// The access key it takes.
    package let accessKey: String
    /// The secret key it takes.
    package let secretKey: String
    private let process: ScriptServer

    /// Starts a server with a bucket named `bucket`, runs `body`, stops it.
    package static func run<Value>(
        bucket: String = "files", auth: Bool = true, _ body: (S3TestServer) async throws -> Value
    ) async throws -> Value {
        let process = try await ScriptServer.start("s3-server.sh", [bucket] + (auth ? ["--auth"] : []))
        defer { process.stop() }
        // "ready URL ACCESS_KEY SECRET_KEY"
        let words = process.readyLine.split(separator: " ").map(String.init)
        guard words.count == 4 else { throw ScriptServer.Failure("the S3 server said: \(process.readyLine)") }
        return try await body(
            S3TestServer(endpoint: words[1], bucket: bucket, accessKey: words[2], secretKey: words[3], process: process))
    }

    /// Settings for this server's bucket (path-style: a loopback address has no bucket
    /// subdomains), or for `bucket` and `secret` when given.
    package func settings(bucket: String? = nil, prefix: String = "", secret: String? = nil) throws -> S3Settings {
        try S3Settings(
            endpoint: endpoint, region: "us-east-1", bucket: bucket ?? self.bucket, prefix: prefix, accessKey: accessKey,
            secretKey: secret ?? secretKey, pathStyle: true)
    }

    /// Wipes the server's state (its bucket, its objects, its users and their keys) under a
    /// host that uses it: every request the host makes from now on is refused, as a store that
    /// fails while the host runs. moto's own reset, which takes no signature.
    package func reset() async throws {
        var request = HTTPClientRequest(url: "\(endpoint)/moto-api/reset")
        request.method = .POST
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        guard response.status == .ok else { throw ScriptServer.Failure("moto's reset answered \(response.status)") }
    }

    /// A store over this server's bucket, to look at what the host left there.
    package func store(prefix: String = "") throws -> any FileContentStore {
        S3FileStore(settings: try settings(prefix: prefix))
    }
}
