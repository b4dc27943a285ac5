/// What one thumbnail may cost. The defaults are Qiniu's limits for thumbnails made on request
/// (its "synchronous processing"): originals up to 20 MB, 30 000 pixels a side and 150 million
/// pixels; thumbnails up to 9 999 pixels a side and 24 999 999 pixels. Past them Qiniu refuses
/// with 400, and so does this server (the original is not answered instead, unless the URL asks
/// for it with `ignore-error/1`).
public struct ThumbnailLimits: Sendable, Equatable {
    /// The largest original, in bytes.
    public var maxSourceBytes = 20 * 1024 * 1024
    /// The longest side of an original, read from its header before any pixel is decoded.
    public var maxSourceSide = 30_000
    /// The most pixels of an original (width × height, from its header).
    public var maxSourcePixels = 150_000_000
    /// The most pixels of an original its decoder holds whole (GIF, WebP, HEIF, interlaced PNG,
    /// progressive JPEG): 4096 × 4096, 64 MB as RGBA, so two slots hold at most ~130 MB.
    public var maxBufferedPixels = 16_777_216
    /// The longest side of a thumbnail.
    public var maxSide = ThumbnailSpec.maxSide
    /// The most pixels of a thumbnail.
    public var maxPixels = 24_999_999
    /// The most pixels of a thumbnail whose encoder holds it whole (WebP, GIF, interlaced PNG,
    /// progressive JPEG): 2048 × 2048. Measured for RGBA noise, the encoders' worst case: WebP
    /// 190 MB at its peak and 1.6 s (at 25 M pixels 936 MB and 10.5 s), GIF 130 MB and 1.1 s;
    /// so the encode, which can't be stopped, stays well within the time budget
    /// (`ThumbnailOutputBound`).
    public var maxBufferedOutputPixels = 4_194_304
    /// How long making one may take; past it libvips stops (its pipeline is killed) and the
    /// request is answered 503.
    public var timeBudget = Duration.seconds(10)

    /// The defaults.
    public init() {}
}
