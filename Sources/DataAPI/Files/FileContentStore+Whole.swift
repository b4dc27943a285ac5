extension FileContentStore {
    /// All `size` bytes under `key`, opened for reading; nil when there are none (an empty file
    /// gives an empty stream).
    func read(key: String, entire size: Int) async throws(DataAPIError) -> FileContentStream? {
        guard size > 0 else { return FileContentStream(length: 0) { _ in } }
        return try await read(key: key, range: 0...(size - 1))
    }

    /// Stores what `fill` appends under `key` and answers its size and MD5; nothing is left
    /// under the key when `fill` (or the store) throws.
    func write(key: String, _ fill: (any FileContentUpload) async throws -> Void) async throws -> StoredContent {
        let upload = try await beginUpload(key: key)
        do {
            try await fill(upload)
            return try await upload.finish()
        } catch {
            await upload.cancel()
            throw error
        }
    }
}
