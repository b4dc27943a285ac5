import Foundation
import JSON
import NIOCore

/// Moves the bytes of exported files into this host's file store (its directory or its bucket).
///
/// A LeanCloud export holds only `_File` objects; the bytes are apart, each under its `key` (the
/// file domain + key is its address). Each imported `_File` gets its bytes into the store under
/// the same key, from a folder they were downloaded to or fetched from the file's old url, and
/// its `url` pointed here, so the app's files outlive LeanCloud's domain. A file whose bytes
/// can't be had keeps its old url (it is reported). Bytes already in the store with the size
/// the export gives are kept: an import run again, after an interruption, fetches only the rest.
package struct ExportFileBytes: Sendable {
    /// The folder the bytes were downloaded to, one file per key; nil when there is none.
    public var sourceDirectory: String?
    /// Where the bytes go.
    public var store: any FileContentStore
    /// Where this host serves files: the new urls.
    public var urls: FileURLs

    /// Streams a file's bytes from its old url (`url`) into `upload`, when the folder doesn't
    /// hold them; nil uses only what the folder holds. Throws when they can't all be had.
    public var download: (@Sendable (_ url: String, _ upload: any FileContentUpload) async throws -> Void)?

    /// Creates a mover.
    public init(
        sourceDirectory: String?, store: any FileContentStore, urls: FileURLs,
        download: (@Sendable (_ url: String, _ upload: any FileContentUpload) async throws -> Void)? = nil
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

    /// Puts the bytes of one `_File` object into the store (unless they are there already with
    /// the export's size, so a second import copies nothing) and points its url here. Bytes not
    /// in the folder are fetched from the object's url, when a `download` is given. The store
    /// holding other bytes under the key (another size) is reported, never overwritten.
    public func adopt(_ object: inout StoredObject) async throws -> Outcome {
        guard case .string(let key)? = object.fields["key"], LocalFileStore.isValidKey(key) else {
            return .missing(nil)
        }
        let expected = object.fields["metaData"]?["size"]?.intValue.map(Int.init)
        if let held = try await store.size(ofKey: key) {
            if let expected, held != expected {
                return .missing("\(key): the store holds \(held) bytes under this key, the export says \(expected); left as it is")
            }
        } else {
            let source = sourceDirectory.map { URL(fileURLWithPath: $0).appendingPathComponent(key).path }
            let stored: StoredContent
            if let source, let input = FileHandle(forReadingAtPath: source) {
                defer { try? input.close() }
                stored = try await store.write(key: key) { upload in
                    while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
                        try await upload.append(ByteBuffer(bytes: chunk))
                    }
                }
            } else if let download, case .string(let url)? = object.fields["url"], url.hasPrefix("http://") || url.hasPrefix("https://") {
                do {
                    // Never more than the export says (one byte past it tells a wrong file):
                    // a body that doesn't end can't fill the disk or the bucket.
                    stored = try await store.write(key: key) { upload in
                        try await download(
                            url,
                            expected.map {
                                BoundedUpload(
                                    inner: upload, limit: $0, refusal: DataAPIError(.importFailure, "the body passed the \($0) bytes the export gives"))
                            } ?? upload)
                    }
                } catch let error as DataAPIError where error.code == .fileStoreFailure {
                    throw error
                } catch {
                    return .missing("\(key): download from \(url) failed: \(error)")
                }
                // A body cut short, or another file than the export describes: not kept.
                if let expected, stored.size != expected {
                    try await store.delete(key: key)
                    return .missing("\(key): \(url) gave \(stored.size) bytes, the export says \(expected)")
                }
            } else {
                return .missing(nil)
            }
            if case .object(var metaData)? = object.fields["metaData"] {
                metaData["size"] = .int(Int64(stored.size))
                metaData["_checksum"] = .string(stored.md5)
                object.fields["metaData"] = .object(metaData)
            }
        }
        object.fields["url"] = .string(urls.url(of: key))
        object.fields["provider"] = .string(store.provider.name)
        object.fields["bucket"] = .string(store.provider.bucket)
        return .adopted
    }
}
