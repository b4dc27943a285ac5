import Foundation

/// Where the bytes of uploaded files live. The `_File` objects that describe them are in the
/// database; this is only their content, addressed by key.
public protocol FileContentStore: Sendable {
    /// Starts writing a new file's content; nothing is visible under any key until `finish`.
    func beginWrite() throws(DataAPIError) -> any FileContentWriter

    /// The content stored under `key`, or nil when there is none.
    func content(forKey key: String) throws(DataAPIError) -> FileContent?

    /// Removes the content stored under `key`; removing what isn't there is no error.
    func remove(key: String) throws(DataAPIError)
}

/// The content of a file being written.
public protocol FileContentWriter: Sendable {
    /// Appends bytes.
    func write(_ bytes: UnsafeRawBufferPointer) throws(DataAPIError)

    /// Makes the content durable and visible under `key`; returns its size and MD5.
    func finish(key: String) throws(DataAPIError) -> StoredContent

    /// Throws the partial content away.
    func abandon()
}

/// What `finish` reports about stored content.
public struct StoredContent: Sendable, Equatable {
    /// Its size in bytes.
    public var size: Int
    /// Its MD5, as lowercase hex (LeanCloud's `_checksum`, and the download's `ETag`).
    public var md5: String
}

/// Stored content, open for reading.
public struct FileContent: Sendable {
    /// Its size in bytes.
    public let size: Int
    /// The file it is read from.
    public let path: String
}
