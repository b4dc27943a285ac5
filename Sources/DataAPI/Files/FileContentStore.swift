package import Foundation
package import NIOCore

/// Where the bytes of uploaded files live: a local directory (`LocalFileStore`, the embedded
/// default) or a bucket of an S3-compatible object store. The `_File` objects that describe them
/// are in the database; this is only their content, addressed by key. Every call is async and
/// every transfer streams: a remote store never holds a whole file in memory either way.
package protocol FileContentStore: Sendable {
    /// Starts writing a new file's content under `key` (a valid key, `LocalFileStore.isValidKey`);
    /// nothing is visible under it until `finish`.
    func beginUpload(key: String) async throws(DataAPIError) -> any FileContentUpload

    /// The size in bytes of the content stored under `key`, or nil when there is none.
    func size(ofKey key: String) async throws(DataAPIError) -> Int?

    /// Bytes `range` of the content under `key`, opened for reading as they arrive; nil when
    /// there is none. The range lies inside the content (the caller read its size first).
    func read(key: String, range: ClosedRange<Int>) async throws(DataAPIError) -> FileContentStream?

    /// Removes the content stored under `key`; removing what isn't there is no error.
    func delete(key: String) async throws(DataAPIError)

    /// The content stored, in key order: at most `limit` keys after `cursor` (nil: from the
    /// start), each with its size and when it was written; what `files sweep` and `files
    /// migrate` walk. Names that are no key of ours (`LocalFileStore.isValidKey`) are left out.
    func listKeys(after cursor: String?, limit: Int) async throws(DataAPIError) -> [StoredKey]

    /// A file on this machine that holds the content, when the store keeps one (libvips reads
    /// paths); nil for a remote store, whose bytes are fetched first (`FileContentStore.copy`).
    func localPath(ofKey key: String) -> String?

    /// A URL anyone may GET the content from for `expiry` (an S3 presigned URL), answered with
    /// `contentType` and `disposition` (the host's own choice of them, never what the upload
    /// said), for stores that can hand one out; nil otherwise, and the host streams the bytes.
    func downloadURL(ofKey key: String, expiry: Duration, contentType: String, disposition: String?) -> String?

    /// What a stored `_File`'s `provider` and `bucket` say of content kept here: `local` and
    /// `files` for the directory, `s3` and the bucket's name for a bucket.
    var provider: (name: String, bucket: String) { get }
}

/// The content of a file being written, through a store of any kind.
package protocol FileContentUpload: Sendable {
    /// Appends bytes; a remote store sends them on in bounded parts.
    func append(_ bytes: ByteBuffer) async throws(DataAPIError)

    /// Makes the content durable and visible under its key; returns its size and MD5.
    func finish() async throws(DataAPIError) -> StoredContent

    /// Throws the partial content away.
    func cancel() async
}

/// A byte range of stored content, read as it arrives.
package struct FileContentStream: Sendable {
    /// How many bytes it gives.
    public let length: Int
    private let pump: @Sendable (_ each: (ByteBuffer) async throws -> Void) async throws -> Void

    /// A stream of `length` bytes that `pump` hands, a buffer at a time, to the closure it is given.
    public init(length: Int, pump: @escaping @Sendable (_ each: (ByteBuffer) async throws -> Void) async throws -> Void) {
        self.length = length
        self.pump = pump
    }

    /// Hands each buffer to `body` as it is read; once.
    public func forEach(_ body: (ByteBuffer) async throws -> Void) async throws {
        try await pump(body)
    }

    /// The bytes read from a disk at a time: a large file never sits whole in memory.
    static let chunkSize = 256 * 1024

    /// `length` bytes of an open file from `start`, read a chunk at a time; the file is closed
    /// once they are read (or when the stream is dropped unread).
    public static func reading(_ handle: FileHandle, from start: Int, length: Int) -> FileContentStream {
        FileContentStream(length: length) { each in
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(start))
            var left = length
            while left > 0 {
                let data = try handle.read(upToCount: min(chunkSize, left)) ?? Data()
                guard !data.isEmpty else { break }
                left -= data.count
                try await each(ByteBuffer(bytes: data))
            }
        }
    }
}

extension FileContentStore {
    /// Copies at most `limit` bytes of the content under `key` into a new file at `path` (a
    /// thumbnail's original from a remote store); false when there is no such content.
    package func copy(key: String, to path: String, limit: Int) async throws -> Bool {
        guard let size = try await size(ofKey: key) else { return false }
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw DataAPIError(.fileStoreFailure, "Could not create \(path).")
        }
        defer { try? handle.close() }
        let count = min(size, limit)
        guard count > 0 else { return true }
        guard let stream = try await read(key: key, range: 0...(count - 1)) else { return false }
        try await stream.forEach { buffer in try handle.write(contentsOf: Data(buffer.readableBytesView)) }
        return true
    }
}

/// The content of a file being written synchronously, to this machine's disk.
package protocol FileContentWriter: Sendable {
    /// Appends bytes.
    func write(_ bytes: UnsafeRawBufferPointer) throws(DataAPIError)

    /// Makes the content durable and visible under `key`; returns its size and MD5.
    func finish(key: String) throws(DataAPIError) -> StoredContent

    /// Throws the partial content away.
    func abandon()
}

/// One key of stored content, as a listing gives it.
package struct StoredKey: Sendable, Equatable {
    /// The key.
    public var key: String
    /// The content's size in bytes.
    public var size: Int
    /// When it was written.
    public var modified: Date

    /// Creates an entry.
    public init(key: String, size: Int, modified: Date) {
        self.key = key
        self.size = size
        self.modified = modified
    }
}

/// What `finish` reports about stored content.
package struct StoredContent: Sendable, Equatable {
    /// Its size in bytes.
    public var size: Int
    /// Its MD5, as lowercase hex (LeanCloud's `_checksum`, and the download's `ETag`).
    public var md5: String

    /// Creates a report.
    public init(size: Int, md5: String) {
        self.size = size
        self.md5 = md5
    }

    /// A digest's bytes as lowercase hex, the form `md5` takes.
    public static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}

/// Stored content on this machine's disk, open for reading.
package struct FileContent: Sendable {
    /// Its size in bytes.
    public let size: Int
    /// The file it is read from.
    public let path: String
}
