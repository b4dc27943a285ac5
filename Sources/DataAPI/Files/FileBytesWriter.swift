package import NIOCore

/// The writer a file's bytes go through: it refuses bytes past the size limit, and tells a
/// client a store's failure in the client's terms.
package struct FileBytesWriter: Sendable {
    /// The upload, counting against the limit (a class: the writer is handed around by value).
    private let upload: BoundedUpload

    init(inner: any FileContentUpload, limit: Int) {
        upload = BoundedUpload(
            inner: inner, limit: limit, refusal: DataAPIError(.fileTooLarge, "The file is larger than the limit of \(limit) bytes."))
    }

    /// Appends bytes; 130 (413) once the file would pass the size limit.
    public func write(_ bytes: ByteBuffer) async throws {
        try upload.admit(bytes.readableBytes)
        do {
            try await upload.inner.append(bytes)
        } catch {
            throw Self.storeFailure(error)
        }
    }

    func finish() async throws -> StoredContent {
        do {
            return try await upload.inner.finish()
        } catch {
            throw Self.storeFailure(error)
        }
    }

    func abandon() async {
        await upload.inner.cancel()
    }

    /// A store's failure as the client is answered: a store that can't be reached just now
    /// (`temporarilyUnavailable`, a remote one) says so; any other is the storage's failure.
    private static func storeFailure(_ error: DataAPIError) -> DataAPIError {
        error.code == .temporarilyUnavailable ? error : DataAPIError(.storageFailure, error.message)
    }
}
