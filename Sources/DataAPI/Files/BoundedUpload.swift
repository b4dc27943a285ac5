package import NIOCore
import Synchronization

/// An upload that refuses bytes past `limit`: a client's file past the size limit
/// (`FileBytesWriter`), an imported file's download past the size its export gives, a body
/// that never ends. The bytes are counted as they come; the refusal is thrown before the
/// store sees any byte past the limit.
package final class BoundedUpload: FileContentUpload {
    /// Where the bytes go.
    package let inner: any FileContentUpload
    /// The most bytes taken.
    package let limit: Int
    /// What is thrown past the limit.
    private let refusal: DataAPIError
    /// Bytes taken so far.
    private let total = Atomic<Int>(0)

    /// An upload into `inner` that throws `refusal` once more than `limit` bytes came.
    package init(inner: any FileContentUpload, limit: Int, refusal: DataAPIError) {
        self.inner = inner
        self.limit = limit
        self.refusal = refusal
    }

    /// Counts `count` more bytes; throws the refusal when they pass the limit.
    package func admit(_ count: Int) throws(DataAPIError) {
        guard total.wrappingAdd(count, ordering: .relaxed).newValue <= limit else { throw refusal }
    }

    package func append(_ bytes: ByteBuffer) async throws(DataAPIError) {
        try admit(bytes.readableBytes)
        try await inner.append(bytes)
    }

    package func finish() async throws(DataAPIError) -> StoredContent {
        try await inner.finish()
    }

    package func cancel() async {
        await inner.cancel()
    }
}
