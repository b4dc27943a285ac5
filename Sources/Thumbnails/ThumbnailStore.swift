import Foundation

/// Thumbnails of stored files: the cached one when there is one, else one made and kept.
public struct ThumbnailStore: Sendable {
    /// What makes them.
    public let thumbnailer: Thumbnailer
    /// Where they are kept.
    public let cache: ThumbnailCache

    /// Creates a store.
    public init(thumbnailer: Thumbnailer, cache: ThumbnailCache) {
        self.thumbnailer = thumbnailer
        self.cache = cache
    }

    /// The thumbnail `spec` asks of the stored file `key` in its `version` (what tells this
    /// file from another stored under the same key before), whose bytes are at `path`, opened;
    /// made, when it must be, in `client`'s share of the slots.
    public func thumbnail(
        ofFile key: String, version: String, at path: String, spec: ThumbnailSpec, for client: String
    ) async throws(ThumbnailError) -> ThumbnailCache.Hit {
        try await thumbnail(ofFile: key, version: version, original: { path }, spec: spec, for: client)
    }

    /// The same, where `original` gives the path of the bytes only when a thumbnail must be
    /// made (an original in a remote store is fetched then, never for a cached thumbnail).
    public func thumbnail(
        ofFile key: String, version: String, original: () async throws(ThumbnailError) -> String, spec: ThumbnailSpec,
        for client: String
    ) async throws(ThumbnailError) -> ThumbnailCache.Hit {
        let name = ThumbnailCache.name(fileKey: key, version: version, spec: spec)
        if let hit = cache.open(name) { return hit }
        let path = try await original()
        let temporary = cache.temporaryPath()
        let made: Thumbnailer.Made
        do {
            made = try await thumbnailer.make(from: path, spec: spec, to: temporary, for: client)
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        return try cache.keep(temporary, as: name, format: made.format)
    }
}
