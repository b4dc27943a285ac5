import Crypto
package import Foundation
import NIOCore
import Synchronization

/// File content in a directory: each file is written to a temporary name, flushed to disk, and
/// only then renamed to its key, so a crash never leaves half a file visible under a key.
package struct LocalFileStore: FileContentStore {
    /// The directory that holds the content.
    public let directory: URL
    private var temporary: URL { directory.appendingPathComponent(".incoming") }

    /// Creates a store over `directory`, creating it when missing. Partial files a crash left
    /// behind are removed.
    public init(directory: URL) throws(DataAPIError) {
        self.directory = directory
        do {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(".incoming"))
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent(".incoming"), withIntermediateDirectories: true)
        } catch {
            throw DataAPIError(.fileStoreFailure, "Could not create the files directory \(directory.path): \(error)")
        }
    }

    /// A store over the directory of a host that may be running (`files migrate`, `files
    /// sweep`): nothing in it is touched, its partial uploads in `.incoming` above all.
    public init(runningIn directory: URL) {
        self.directory = directory
    }

    public func beginWrite() throws(DataAPIError) -> any FileContentWriter {
        try makeWriter()
    }

    private func makeWriter() throws(DataAPIError) -> LocalFileWriter {
        let path = temporary.appendingPathComponent(UUID().uuidString).path
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw DataAPIError(.fileStoreFailure, "Could not create a file under \(temporary.path).")
        }
        return LocalFileWriter(handle: handle, temporaryPath: path, directory: directory)
    }

    public func content(forKey key: String) throws(DataAPIError) -> FileContent? {
        guard Self.isValidKey(key) else { return nil }
        let path = directory.appendingPathComponent(key).path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.intValue
        else { return nil }
        return FileContent(size: size, path: path)
    }

    public func remove(key: String) throws(DataAPIError) {
        guard Self.isValidKey(key) else { return }
        let path = directory.appendingPathComponent(key).path
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw DataAPIError(.fileStoreFailure, "Could not remove \(path): \(error)")
        }
    }

    public func beginUpload(key: String) async throws(DataAPIError) -> any FileContentUpload {
        LocalUpload(writer: try makeWriter(), key: key)
    }

    public func size(ofKey key: String) async throws(DataAPIError) -> Int? {
        try content(forKey: key)?.size
    }

    public func read(key: String, range: ClosedRange<Int>) async throws(DataAPIError) -> FileContentStream? {
        guard let content = try content(forKey: key), let handle = FileHandle(forReadingAtPath: content.path) else { return nil }
        return .reading(handle, from: range.lowerBound, length: range.count)
    }

    public func delete(key: String) async throws(DataAPIError) {
        try remove(key: key)
    }

    public var provider: (name: String, bucket: String) { ("local", "files") }

    public func listKeys(after cursor: String?, limit: Int) async throws(DataAPIError) -> [StoredKey] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw DataAPIError(.fileStoreFailure, "Could not list \(directory.path): \(error)")
        }
        // Sorted by their bytes, as S3 lists keys: one order for both stores.
        let keys = names.filter { name in Self.isValidKey(name) && cursor.map { $0.utf8.lexicographicallyPrecedes(name.utf8) } ?? true }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var found: [StoredKey] = []
        for key in keys where found.count < limit {
            let path = directory.appendingPathComponent(key).path
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                attributes[.type] as? FileAttributeType == .typeRegular, let size = (attributes[.size] as? NSNumber)?.intValue
            else { continue }
            found.append(StoredKey(key: key, size: size, modified: attributes[.modificationDate] as? Date ?? .distantPast))
        }
        return found
    }

    public func localPath(ofKey key: String) -> String? {
        guard Self.isValidKey(key) else { return nil }
        return directory.appendingPathComponent(key).path
    }

    public func downloadURL(ofKey key: String, expiry: Duration, contentType: String, disposition: String?) -> String? {
        nil
    }

    /// Keys are ours (hex, with the name's extension): anything else, `..` above all, is refused.
    package static func isValidKey(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.count <= 200 && !key.hasPrefix(".")
            && key.utf8.allSatisfy { byte in
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }
}

/// Content being written to a temporary file, hashed as it goes.
final class LocalFileWriter: FileContentWriter {
    private struct State {
        var md5 = Insecure.MD5()
        var size = 0
        var isOpen = true
    }

    private let handle: FileHandle
    private let temporaryPath: String
    private let directory: URL
    private let state = Mutex(State())

    init(handle: FileHandle, temporaryPath: String, directory: URL) {
        self.handle = handle
        self.temporaryPath = temporaryPath
        self.directory = directory
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(DataAPIError) {
        let chunk = Data(bytes)
        let failure: DataAPIError? = state.withLock { state in
            guard state.isOpen else { return DataAPIError(.fileStoreFailure, "The file was already finished.") }
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                return DataAPIError(.fileStoreFailure, "Could not write \(temporaryPath): \(error)")
            }
            state.md5.update(data: chunk)
            state.size += chunk.count
            return nil
        }
        if let failure { throw failure }
    }

    func finish(key: String) throws(DataAPIError) -> StoredContent {
        guard LocalFileStore.isValidKey(key) else { throw DataAPIError(.fileStoreFailure, "Invalid file key '\(key)'.") }
        let result: Result<StoredContent, DataAPIError> = state.withLock { state in
            guard state.isOpen else { return .failure(DataAPIError(.fileStoreFailure, "The file was already finished.")) }
            state.isOpen = false
            do {
                // On disk before it is visible: the `_File` object written next must never
                // describe bytes a crash could lose.
                try handle.synchronize()
                try handle.close()
                try FileManager.default.moveItem(atPath: temporaryPath, toPath: directory.appendingPathComponent(key).path)
            } catch {
                try? FileManager.default.removeItem(atPath: temporaryPath)
                return .failure(DataAPIError(.fileStoreFailure, "Could not store \(key): \(error)"))
            }
            return .success(StoredContent(size: state.size, md5: StoredContent.hex(state.md5.finalize())))
        }
        return try result.get()
    }

    func abandon() {
        let wasOpen = state.withLock { state in
            defer { state.isOpen = false }
            return state.isOpen
        }
        guard wasOpen else { return }
        try? handle.close()
        try? FileManager.default.removeItem(atPath: temporaryPath)
    }
}

/// A local writer seen as an upload under a key known from the start (the face a remote store
/// has); writes to a local disk need not wait.
struct LocalUpload: FileContentUpload {
    let writer: LocalFileWriter
    let key: String

    func append(_ bytes: ByteBuffer) throws(DataAPIError) {
        let written: Result<Void, DataAPIError> = bytes.withUnsafeReadableBytes { raw in
            do throws(DataAPIError) {
                return .success(try writer.write(raw))
            } catch {
                return .failure(error)
            }
        }
        try written.get()
    }

    func finish() throws(DataAPIError) -> StoredContent {
        try writer.finish(key: key)
    }

    func cancel() {
        writer.abandon()
    }
}
