import Foundation
import JSON
import NIOCore

/// Moves the bytes of exported files into this host's file store.
///
/// A LeanCloud export holds only `_File` objects; the bytes are downloaded apart, each under its
/// `key` (the file domain + key is its address). Given the folder they were downloaded to, each
/// imported `_File` whose key is there gets its bytes copied into the store under the same key,
/// and its `url` rewritten to this host's, so the app's files outlive LeanCloud's domain. Bytes
/// not in the folder can be downloaded into it from the file's old url; a file whose bytes are
/// still missing keeps its old url (it is reported).
package struct ExportFileBytes: Sendable {
    /// The folder the bytes were downloaded to, one file per key.
    public var sourceDirectory: String
    /// Where the bytes go.
    public var store: any FileContentStore
    /// Where this host serves files: the new urls.
    public var urls: FileURLs

    /// Fetches a file's bytes from its old url into the folder (`url`, then the path to write),
    /// when they are not there yet; nil uses only what the folder holds.
    public var download: (@Sendable (_ url: String, _ destination: String) async throws -> Void)?

    /// Creates a mover.
    public init(
        sourceDirectory: String, store: any FileContentStore, urls: FileURLs,
        download: (@Sendable (_ url: String, _ destination: String) async throws -> Void)? = nil
    ) {
        self.sourceDirectory = sourceDirectory
        self.store = store
        self.urls = urls
        self.download = download
    }

    /// What became of one file's bytes.
    public enum Outcome: Sendable, Equatable {
        /// They are in the store, and the url points here.
        case adopted
        /// They are not: the object keeps its old url. The reason, when there is one to tell.
        case missing(String?)
    }

    /// Copies the bytes of one `_File` object into the store (unless they are there already,
    /// so a second import copies nothing) and points its url here. Bytes not in the folder are
    /// downloaded first from the object's url, when a `download` is given.
    public func adopt(_ object: inout StoredObject) async throws -> Outcome {
        guard case .string(let key)? = object.fields["key"], LocalFileStore.isValidKey(key) else {
            return .missing(nil)
        }
        let source = URL(fileURLWithPath: sourceDirectory).appendingPathComponent(key).path
        if try await store.size(ofKey: key) == nil {
            if !FileManager.default.fileExists(atPath: source), let download,
                case .string(let url)? = object.fields["url"], url.hasPrefix("http://") || url.hasPrefix("https://")
            {
                do {
                    try await download(url, source)
                } catch {
                    return .missing("\(key): download from \(url) failed: \(error)")
                }
            }
            guard let input = FileHandle(forReadingAtPath: source) else { return .missing(nil) }
            defer { try? input.close() }
            let writer = try await store.beginUpload(key: key)
            do {
                while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                    try await writer.append(ByteBuffer(bytes: chunk))
                }
                let stored = try await writer.finish()
                if case .object(var metaData)? = object.fields["metaData"] {
                    metaData["size"] = .int(Int64(stored.size))
                    metaData["_checksum"] = .string(stored.md5)
                    object.fields["metaData"] = .object(metaData)
                }
            } catch {
                await writer.cancel()
                throw error
            }
        }
        object.fields["url"] = .string(urls.url(of: key))
        object.fields["provider"] = "local"
        object.fields["bucket"] = "files"
        return .adopted
    }
}
