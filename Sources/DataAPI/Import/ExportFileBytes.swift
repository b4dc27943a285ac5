import Foundation

/// Moves the bytes of exported files into this host's file store.
///
/// A LeanCloud export holds only `_File` objects; the bytes are downloaded apart, each under its
/// `key` (the file domain + key is its address). Given the folder they were downloaded to, each
/// imported `_File` whose key is there gets its bytes copied into the store under the same key,
/// and its `url` rewritten to this host's, so the app's files outlive LeanCloud's domain. A file
/// whose bytes are not in the folder keeps its old url (it is reported).
public struct ExportFileBytes: Sendable {
    /// The folder the bytes were downloaded to, one file per key.
    public var sourceDirectory: String
    /// Where the bytes go.
    public var store: any FileContentStore
    /// Where this host serves files (`https://api.example.com`): the new urls start with it.
    public var baseURL: String

    /// Creates a mover.
    public init(sourceDirectory: String, store: any FileContentStore, baseURL: String) {
        self.sourceDirectory = sourceDirectory
        self.store = store
        self.baseURL = baseURL
    }

    /// Copies the bytes of one `_File` object into the store (unless they are there already,
    /// so a second import copies nothing) and points its url here; false when the folder has no
    /// bytes for its key.
    public func adopt(_ object: inout StoredObject) throws -> Bool {
        guard case .string(let key)? = object.fields["key"], LocalFileStore.isValidKey(key) else { return false }
        let source = URL(fileURLWithPath: sourceDirectory).appendingPathComponent(key).path
        if try store.content(forKey: key) == nil {
            guard let input = FileHandle(forReadingAtPath: source) else { return false }
            defer { try? input.close() }
            let writer = try store.beginWrite()
            do {
                while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try chunk.withUnsafeBytes { try writer.write($0) }
                }
                let stored = try writer.finish(key: key)
                if case .object(var metaData)? = object.fields["metaData"] {
                    metaData["size"] = .int(Int64(stored.size))
                    metaData["_checksum"] = .string(stored.md5)
                    object.fields["metaData"] = .object(metaData)
                }
            } catch {
                writer.abandon()
                throw error
            }
        }
        object.fields["url"] = .string(FileService.url(of: key, baseURL: baseURL))
        object.fields["provider"] = "local"
        object.fields["bucket"] = "files"
        return true
    }
}
