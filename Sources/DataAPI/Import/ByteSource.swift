import Foundation

/// Bytes read in chunks, front to back: a file, a decompressed stream, an archive member.
///
/// Reference types, so one reader can be layered over another (lines over a tar member over
/// gzip over a file) without copying what each has buffered. Used by one task at a time.
public protocol ByteSource: AnyObject {
    /// The next chunk, or nil at the end.
    func read() throws -> ArraySlice<UInt8>?
}

/// The bytes of a file, read 1 MiB at a time.
public final class FileBytes: ByteSource {
    private let handle: FileHandle
    private let chunkSize: Int
    /// Bytes read so far, plus the count it started from (the files before it, in a directory).
    public private(set) var bytesRead: Int

    /// Opens the file at `path`.
    public init(path: String, chunkSize: Int = 1 << 20, startingCount: Int = 0) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DataAPIError(.importFailure, "Can't read \(path).")
        }
        self.handle = handle
        self.chunkSize = chunkSize
        self.bytesRead = startingCount
    }

    deinit { try? handle.close() }

    public func read() throws -> ArraySlice<UInt8>? {
        guard let data = try handle.read(upToCount: chunkSize), !data.isEmpty else { return nil }
        bytesRead += data.count
        return ArraySlice(data)
    }
}

/// Bytes already in memory (a test's, or a small file read whole), handed out in one chunk.
public final class MemoryBytes: ByteSource {
    private var bytes: ArraySlice<UInt8>?

    /// Wraps `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes.isEmpty ? nil : bytes[...] }

    public func read() throws -> ArraySlice<UInt8>? {
        defer { bytes = nil }
        return bytes
    }
}
