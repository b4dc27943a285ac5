package import Foundation

/// A bucket read first and the local directory read when the bucket has no such key: how a
/// running app moves its files from disk to a bucket without downtime (`--files-s3-fallback`).
/// New files go to the bucket; a file not copied yet is still served from disk; a delete
/// removes both copies. Once `files migrate` has copied and verified everything, the host is
/// started without the fallback.
package struct FallbackFileStore: FileContentStore {
    /// Where new files go and what is read first.
    public let primary: any FileContentStore
    /// What is read when `primary` lacks a key: the directory files are moving out of.
    public let fallback: LocalFileStore

    /// Creates a store over both.
    public init(primary: any FileContentStore, fallback: LocalFileStore) {
        self.primary = primary
        self.fallback = fallback
    }

    public func beginUpload(key: String) async throws(DataAPIError) -> any FileContentUpload {
        try await primary.beginUpload(key: key)
    }

    public func size(ofKey key: String) async throws(DataAPIError) -> Int? {
        if let size = try await primary.size(ofKey: key) { return size }
        return try await fallback.size(ofKey: key)
    }

    public func read(key: String, range: ClosedRange<Int>) async throws(DataAPIError) -> FileContentStream? {
        if let stream = try await primary.read(key: key, range: range) { return stream }
        return try await fallback.read(key: key, range: range)
    }

    public func delete(key: String) async throws(DataAPIError) {
        // Both: a copy left on disk would come back through the fallback.
        try await primary.delete(key: key)
        try await fallback.delete(key: key)
    }

    public func listKeys(after cursor: String?, limit: Int) async throws(DataAPIError) -> [StoredKey] {
        try await primary.listKeys(after: cursor, limit: limit)
    }

    public var provider: (name: String, bucket: String) { primary.provider }

    public func localPath(ofKey key: String) -> String? {
        nil
    }

    public func downloadURL(ofKey key: String, expiry: Duration, contentType: String, disposition: String?) -> String? {
        // A presigned URL of a key still only on disk would answer 404: the host streams.
        nil
    }
}
