public import Foundation
public import Thumbnails

/// How thumbnails are made and kept (`HostConfiguration.thumbnails`).
public struct ThumbnailOptions: Sendable {
    /// What one may cost: Qiniu's limits by default (`ThumbnailLimits`).
    public var limits = ThumbnailLimits()
    /// How many are made at once (2) and how long a request waits for a turn (2 s) before 503.
    public var gate = ThumbnailGate(slots: 2, maxWait: .seconds(2))
    /// The most bytes of thumbnails kept on disk (256 MB); the least recently used go first.
    public var cacheBytes = 256 * 1024 * 1024

    /// The defaults.
    public init() {}

    /// Where they are kept, inside the data directory.
    public static func directory(in dataDirectory: String) -> URL {
        URL(fileURLWithPath: dataDirectory).appendingPathComponent("thumbnails")
    }
}
