import Crypto
public import Foundation
import Synchronization

/// Thumbnails kept on disk, one file per stored file and normalised spec, at most `maxBytes` in
/// all: past it the least recently used are removed. Each is written under a temporary name
/// and renamed, so a crash never leaves half a thumbnail under a real name; what a crash leaves
/// in `.incoming` is removed at start.
///
/// The index is in memory (rebuilt from the directory at start, oldest first by modification
/// time); the directory is this host's alone, as the files directory is.
public final class ThumbnailCache: Sendable {
    /// The directory.
    public let directory: URL
    /// The most bytes kept.
    public let maxBytes: Int

    private struct Entry {
        var format: ThumbnailSpec.Format
        var size: Int
        var lastUse: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var total = 0
        var clock = 0
        var nextTemporary = 0
    }

    private let state: Mutex<State>
    private var incoming: URL { directory.appendingPathComponent(".incoming") }

    /// A cache over `directory` (created when missing) of at most `maxBytes`.
    public init(directory: URL, maxBytes: Int) throws(ThumbnailError) {
        self.directory = directory
        self.maxBytes = max(0, maxBytes)
        let manager = FileManager.default
        var state = State()
        do {
            try? manager.removeItem(at: directory.appendingPathComponent(".incoming"))
            try manager.createDirectory(at: directory.appendingPathComponent(".incoming"), withIntermediateDirectories: true)
            var found: [(name: String, entry: Entry, date: Date)] = []
            for name in try manager.contentsOfDirectory(atPath: directory.path) {
                guard let (hash, format) = Self.parse(name) else { continue }
                let attributes = try manager.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
                let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
                found.append((hash, Entry(format: format, size: size, lastUse: 0), attributes[.modificationDate] as? Date ?? .distantPast))
            }
            for item in found.sorted(by: { $0.date < $1.date }) {
                state.clock += 1
                var entry = item.entry
                entry.lastUse = state.clock
                state.entries[item.name] = entry
                state.total += entry.size
            }
        } catch {
            throw ThumbnailError(.storage, "Could not prepare the thumbnails directory \(directory.path): \(error)")
        }
        self.state = Mutex(state)
        evict()
    }

    /// The cache's name of a thumbnail: a digest of the file's key, the stored file's version
    /// (a key can be reused after its file is deleted: the new file's thumbnails are never the
    /// old one's) and the normalised spec. A deleted file's thumbnails are never asked for again
    /// and leave with the least recently used.
    public static func name(fileKey: String, version: String, spec: ThumbnailSpec) -> String {
        SHA256.hash(data: Data("\(fileKey)\n\(version)\n\(spec.normalized)".utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A kept thumbnail, opened for reading.
    public struct Hit: Sendable {
        /// The open file: it stays readable even if evicted while being sent.
        public let handle: FileHandle
        /// Its size in bytes.
        public let size: Int
        /// Its format.
        public let format: ThumbnailSpec.Format
    }

    /// The thumbnail kept under `name`, opened, and marked as just used.
    public func open(_ name: String) -> Hit? {
        state.withLock { state in
            guard var entry = state.entries[name] else { return nil }
            guard let handle = FileHandle(forReadingAtPath: path(name, entry.format)) else {
                // Removed behind the cache's back: forgotten.
                state.total -= entry.size
                state.entries[name] = nil
                return nil
            }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[name] = entry
            return Hit(handle: handle, size: entry.size, format: entry.format)
        }
    }

    /// A fresh temporary path to make a thumbnail into, for `keep`.
    public func temporaryPath() -> String {
        let number = state.withLock { state in
            state.nextTemporary += 1
            return state.nextTemporary
        }
        return incoming.appendingPathComponent("\(number)-\(UUID().uuidString)").path
    }

    /// Keeps the thumbnail made at `temporary` under `name`, and opens it (before older ones are
    /// evicted to make room, so it stays readable whatever is evicted later).
    public func keep(_ temporary: String, as name: String, format: ThumbnailSpec.Format) throws(ThumbnailError) -> Hit {
        let manager = FileManager.default
        let final = path(name, format)
        let hit: Hit
        do {
            let size = (try manager.attributesOfItem(atPath: temporary)[.size] as? NSNumber)?.intValue ?? 0
            hit = try state.withLock { state throws in
                // Two requests for one thumbnail made it twice: the second replaces the first.
                if let old = state.entries[name] {
                    try? manager.removeItem(atPath: path(name, old.format))
                    state.total -= old.size
                }
                try? manager.removeItem(atPath: final)
                try manager.moveItem(atPath: temporary, toPath: final)
                guard let handle = FileHandle(forReadingAtPath: final) else {
                    throw CocoaError(.fileReadNoPermission)
                }
                // Larger than the whole cache: answered from the open file, never kept (keeping
                // it would evict everything else).
                guard size <= maxBytes else {
                    try? manager.removeItem(atPath: final)
                    return Hit(handle: handle, size: size, format: format)
                }
                state.clock += 1
                state.entries[name] = Entry(format: format, size: size, lastUse: state.clock)
                state.total += size
                return Hit(handle: handle, size: size, format: format)
            }
        } catch {
            try? manager.removeItem(atPath: temporary)
            throw ThumbnailError(.storage, "Could not keep a thumbnail in \(directory.path): \(error)")
        }
        evict()
        return hit
    }

    /// The bytes kept now.
    public var totalBytes: Int { state.withLock { $0.total } }

    /// The names kept now.
    public var names: Set<String> { state.withLock { Set($0.entries.keys) } }

    /// Removes the least recently used until the total fits.
    private func evict() {
        state.withLock { state in
            guard state.total > maxBytes else { return }
            for (name, entry) in state.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard state.total > maxBytes else { break }
                try? FileManager.default.removeItem(atPath: path(name, entry.format))
                state.entries[name] = nil
                state.total -= entry.size
            }
        }
    }

    private func path(_ name: String, _ format: ThumbnailSpec.Format) -> String {
        directory.appendingPathComponent("\(name).\(format.rawValue)").path
    }

    /// The digest and format of a kept file's name; nil for anything else.
    private static func parse(_ fileName: String) -> (String, ThumbnailSpec.Format)? {
        let parts = fileName.split(separator: ".")
        guard parts.count == 2, parts[0].utf8.count == 64, parts[0].utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }),
            let format = ThumbnailSpec.Format(rawValue: String(parts[1]))
        else { return nil }
        return (String(parts[0]), format)
    }
}
