import Synchronization

/// The writer a file's bytes go through: it refuses bytes past the size limit.
package struct FileBytesWriter: Sendable {
    let inner: any FileContentWriter
    let limit: Int
    /// Bytes written so far (a class: the writer is handed around by value).
    private let count = ByteCount()

    init(inner: any FileContentWriter, limit: Int) {
        self.inner = inner
        self.limit = limit
    }

    /// Appends bytes; 130 (413) once the file would pass the size limit.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard count.add(bytes.count) <= limit else {
            throw DataAPIError(.fileTooLarge, "The file is larger than the limit of \(limit) bytes.")
        }
        do {
            try inner.write(bytes)
        } catch {
            throw DataAPIError(.storageFailure, error.message)
        }
    }

    func finish(key: String) throws -> StoredContent {
        do {
            return try inner.finish(key: key)
        } catch {
            throw DataAPIError(.storageFailure, error.message)
        }
    }

    func abandon() {
        inner.abandon()
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
