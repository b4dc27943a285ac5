import DataAPI
import Foundation
import NIOCore

/// Disk space for one upload's part while it gathers: an unnamed file (created and unlinked at
/// once, so a crash leaves nothing behind) that the part's bytes are written to as they arrive
/// and read back from as the part is sent. A part is at least 5 MB (S3's least), so an upload
/// held in memory costs that much per client; on disk, many slow uploads cost the host only
/// their file descriptors and a 64 KB read at a time.
final class SpoolFile: Sendable {
    private let descriptor: Int32

    /// How much is read back at once when a part is sent.
    static let chunkSize = 64 * 1024

    /// A new, empty, unnamed file in `directory`.
    init(in directory: URL) throws(DataAPIError) {
        let path = directory.appendingPathComponent("spool-\(UUID().uuidString)").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw DataAPIError(.fileStoreFailure, "Could not create a spool file in \(directory.path): errno \(errno).")
        }
        unlink(path)
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Appends `bytes` at the end.
    func append(_ bytes: ByteBuffer) throws(DataAPIError) {
        let failed = bytes.withUnsafeReadableBytes { pointer -> Int32? in
            var written = 0
            while written < pointer.count {
                let count = write(descriptor, pointer.baseAddress! + written, pointer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        if let failed { throw DataAPIError(.fileStoreFailure, "Could not write to a spool file: errno \(failed).") }
    }

    /// Empties the file for the next part.
    func clear() throws(DataAPIError) {
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw DataAPIError(.fileStoreFailure, "Could not empty a spool file: errno \(errno).")
        }
    }

    /// The first `length` bytes, read back a chunk at a time as they are sent.
    func chunks(length: Int) -> Chunks {
        Chunks(file: self, length: length)
    }

    /// Up to `count` bytes from `offset`.
    fileprivate func read(at offset: Int, count: Int) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { pointer in
            max(0, pread(descriptor, pointer.baseAddress!, count, off_t(offset)))
        }
        guard read > 0 else { throw DataAPIError(.fileStoreFailure, "A spool file ended early at \(offset) bytes.") }
        return buffer
    }

    /// A part's bytes as the body of its request.
    struct Chunks: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let file: SpoolFile
        let length: Int

        func makeAsyncIterator() -> Iterator {
            Iterator(file: file, length: length)
        }

        struct Iterator: AsyncIteratorProtocol {
            let file: SpoolFile
            let length: Int
            var offset = 0

            mutating func next() async throws -> ByteBuffer? {
                guard offset < length else { return nil }
                let chunk = try file.read(at: offset, count: Swift.min(SpoolFile.chunkSize, length - offset))
                offset += chunk.readableBytes
                return chunk
            }
        }
    }
}
