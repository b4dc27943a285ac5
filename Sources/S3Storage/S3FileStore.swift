import AsyncHTTPClient
package import DataAPI
package import Foundation
package import Logging
import NIOCore

/// File content in a bucket of an S3-compatible object store (AWS S3, MinIO, Ceph, R2, OSS's S3
/// mode): each file is the object `prefix + key`. Uploads stream in parts (`S3Upload`),
/// downloads and ranges stream from GetObject, and a download may be handed to the store
/// itself through a presigned URL.
package struct S3FileStore: FileContentStore {
    private let client: S3Client
    private let listing: S3Listing
    /// Where uploads gather their parts (`SpoolFile`).
    private let spoolDirectory: URL
    /// Where the store's own errors go: callers are told only that it failed.
    private let logger: Logger

    /// A store over the bucket `settings` name, its uploads' parts gathered in files under
    /// `spoolDirectory` (created when missing; the system's temporary directory by default).
    public init(settings: S3Settings, spoolDirectory: URL? = nil, logger: Logger = Logger(label: "functionhost.s3")) {
        client = S3Client(settings: settings)
        listing = S3Listing(client: client)
        self.spoolDirectory = spoolDirectory ?? FileManager.default.temporaryDirectory
        self.logger = logger
    }

    /// Checks that the bucket exists and the credentials may read it, with one request; throws
    /// the store's error as it came (for the operator starting a host).
    public func checkBucket() async throws(S3Error) {
        try await client.checkMissing(key: ".functionhost-bucket-check")
    }

    package func beginUpload(key: String) async throws(DataAPIError) -> any FileContentUpload {
        guard LocalFileStore.isValidKey(key) else { throw DataAPIError(.fileStoreFailure, "Invalid file key '\(key)'.") }
        try? FileManager.default.createDirectory(at: spoolDirectory, withIntermediateDirectories: true)
        return S3Upload(client: client, key: key, spool: try SpoolFile(in: spoolDirectory), logger: logger)
    }

    package var provider: (name: String, bucket: String) { ("s3", client.settings.bucket) }

    package func size(ofKey key: String) async throws(DataAPIError) -> Int? {
        // A key that is not ours names nothing: `..`, `/`, escapes never reach the store.
        guard LocalFileStore.isValidKey(key) else { return nil }
        do {
            return try await client.head(key: key)
        } catch {
            throw Self.mapped(error, logger: logger)
        }
    }

    package func read(key: String, range: ClosedRange<Int>) async throws(DataAPIError) -> FileContentStream? {
        guard LocalFileStore.isValidKey(key) else { return nil }
        let body: HTTPClientResponse.Body
        do {
            guard let answer = try await client.get(key: key, range: range) else { return nil }
            body = answer.body
        } catch {
            throw Self.mapped(error, logger: logger)
        }
        return FileContentStream(length: range.count) { each in
            var sent = 0
            for try await buffer in body {
                // Never more than asked, whatever the store sends.
                let part = buffer.getSlice(at: buffer.readerIndex, length: min(buffer.readableBytes, range.count - sent)) ?? buffer
                sent += part.readableBytes
                try await each(part)
                if sent >= range.count { break }
            }
            guard sent == range.count else {
                throw DataAPIError(.fileStoreFailure, "The store sent \(sent) of \(range.count) bytes of \(key).")
            }
        }
    }

    package func delete(key: String) async throws(DataAPIError) {
        guard LocalFileStore.isValidKey(key) else { return }
        do {
            try await client.delete(key: key)
        } catch {
            throw Self.mapped(error, logger: logger)
        }
    }

    package func listKeys(after cursor: String?, limit: Int) async throws(DataAPIError) -> [StoredKey] {
        // Objects under the prefix that are no key of ours are skipped, page after page: an
        // empty answer is the end of the listing.
        var cursor = cursor
        while true {
            let page: [StoredKey]
            do {
                page = try await listing.page(after: cursor, limit: limit)
            } catch {
                throw Self.mapped(error, logger: logger)
            }
            let ours = page.filter { LocalFileStore.isValidKey($0.key) }
            guard ours.isEmpty, let last = page.last else { return ours }
            cursor = last.key
        }
    }

    package func localPath(ofKey key: String) -> String? {
        nil
    }

    package func downloadURL(ofKey key: String, expiry: Duration, contentType: String, disposition: String?) -> String? {
        guard LocalFileStore.isValidKey(key) else { return nil }
        // GetObject's response overrides, signed with the rest: the bucket answers with them.
        var answer = [("response-content-type", contentType)]
        if let disposition { answer.append(("response-content-disposition", disposition)) }
        return client.presignedGet(key: key, expiry: max(1, Int(expiry.components.seconds)), answer: answer)
    }

    /// The data layer's error for a store's failure: the store can't serve now (503, code
    /// 511). What S3 said (its error code, the endpoint) goes to the operator's log, never to
    /// the caller, who may be any end user.
    static func mapped(_ error: S3Error, logger: Logger) -> DataAPIError {
        logger.error("The S3 file store failed", metadata: ["error": .string(error.message)])
        return DataAPIError(.temporarilyUnavailable, "The file store is unavailable; try again later.")
    }
}
