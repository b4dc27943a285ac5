import AsyncHTTPClient
package import DataAPI
import NIOCore

/// File content in a bucket of an S3-compatible object store (AWS S3, MinIO, Ceph, R2, OSS's S3
/// mode): each file is the object `prefix + key`. Uploads stream in parts (`S3Upload`),
/// downloads and ranges stream from GetObject, and a download may be handed to the store
/// itself through a presigned URL.
package struct S3FileStore: FileContentStore {
    private let client: S3Client
    private let listing: S3Listing

    /// A store over the bucket `settings` name.
    public init(settings: S3Settings) {
        client = S3Client(settings: settings)
        listing = S3Listing(settings: settings)
    }

    package func beginUpload(key: String) async throws(DataAPIError) -> any FileContentUpload {
        guard LocalFileStore.isValidKey(key) else { throw DataAPIError(.fileStoreFailure, "Invalid file key '\(key)'.") }
        return S3Upload(client: client, key: key)
    }

    package func size(ofKey key: String) async throws(DataAPIError) -> Int? {
        // A key that is not ours names nothing: `..`, `/`, escapes never reach the store.
        guard LocalFileStore.isValidKey(key) else { return nil }
        do {
            return try await client.head(key: key)
        } catch {
            throw Self.mapped(error)
        }
    }

    package func read(key: String, range: ClosedRange<Int>) async throws(DataAPIError) -> FileContentStream? {
        guard LocalFileStore.isValidKey(key) else { return nil }
        let body: HTTPClientResponse.Body
        do {
            guard let answer = try await client.get(key: key, range: range) else { return nil }
            body = answer.body
        } catch {
            throw Self.mapped(error)
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
            throw Self.mapped(error)
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
                throw Self.mapped(error)
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
    /// 511), with S3's own error code in the message for the operator's log.
    static func mapped(_ error: S3Error) -> DataAPIError {
        DataAPIError(.temporarilyUnavailable, "The file store failed: \(error.message)")
    }
}
