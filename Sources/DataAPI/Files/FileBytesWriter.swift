package import NIOCore
import Synchronization

/// The writer a file's bytes go through: it refuses bytes past the size limit.
package struct FileBytesWriter: Sendable {
    let inner: any FileContentUpload
    let limit: Int
    /// Bytes written so far (a class: the writer is handed around by value).
    private let count = ByteCount()

    init(inner: any FileContentUpload, limit: Int) {
        self.inner = inner
        self.limit = limit
    }

    /// Appends bytes; 130 (413) once the file would pass the size limit.
    public func write(_ bytes: ByteBuffer) async throws {
        guard count.add(bytes.readableBytes) <= limit else {
            throw DataAPIError(.fileTooLarge, "The file is larger than the limit of \(limit) bytes.")
        }
        do {
            try await inner.append(bytes)
        } catch {
            throw Self.storeFailure(error)
        }
    }

    func finish() async throws -> StoredContent {
        do {
            return try await inner.finish()
        } catch {
            throw Self.storeFailure(error)
        }
    }

    func abandon() async {
        await inner.cancel()
    }

    /// A store's failure as the client is answered: a store that can't be reached just now
    /// (`temporarilyUnavailable`, a remote one) says so; any other is the storage's failure.
    private static func storeFailure(_ error: DataAPIError) -> DataAPIError {
        error.code == .temporarilyUnavailable ? error : DataAPIError(.storageFailure, error.message)
    }
}

/// A running total of bytes, shared by the copies of a writer.
final class ByteCount: Sendable {
    private let total = Atomic<Int>(0)

    /// Adds `bytes` and returns the new total.
    func add(_ bytes: Int) -> Int {
        total.wrappingAdd(bytes, ordering: .relaxed).newValue
    }
}
