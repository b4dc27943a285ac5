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
    /// The most bytes libvips may hold for one thumbnail, as `ThumbnailCost` estimates them from
    /// the original's header (its width, bands and bytes per band) before any pixel is decoded.
    /// libvips holds hundreds of rows of each stage, so a wide, deep original costs far more than
    /// its pixel count says: a 16-bit RGBA PNG of 30 000 × 5 000 held 340 MB (measured).
    public var maxWorkingBytes = 128 * 1024 * 1024
    /// The most pixels of a WebP or GIF thumbnail: their encoders take the whole image in one
    /// call that can't be stopped (libwebp held 640 MB and 6 s for 4096 × 4096 here), 2048 × 2048.
    public var maxWholeEncodePixels = 4_194_304
    /// What decoding one pixel of an original decoded whole may take at worst. Measured on this
    /// project's 2-core machine: 68 ns for a lossy WebP at quality 100 (1.1 s for 4096 × 4096);
    /// a margin for both slots sharing the cores on top.
    public var wholeDecodeTimePerPixel = Duration.nanoseconds(150)
    /// What encoding one pixel of a WebP or GIF thumbnail may take at worst (measured: 370 ns
    /// for WebP, 190 ns for GIF, noise at 4096 × 4096).
    public var wholeEncodeTimePerPixel = Duration.nanoseconds(400)
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

    /// The most pixels of an original decoded whole (GIF, WebP, HEIF, interlaced PNG, progressive
    /// JPEG): `maxBufferedPixels`, and no more than decode in half the time budget, since the
    /// decoder's one call can't be stopped when the budget runs out (the time limit holds).
    public var wholeDecodePixels: Int {
        min(maxBufferedPixels, Self.pixels(in: timeBudget / 2, at: wholeDecodeTimePerPixel))
    }

    /// The most pixels of a WebP or GIF thumbnail: `maxWholeEncodePixels`, and no more than
    /// encode in half the time budget.
    public var wholeEncodePixels: Int {
        min(maxWholeEncodePixels, Self.pixels(in: timeBudget / 2, at: wholeEncodeTimePerPixel))
    }

    private static func pixels(in time: Duration, at perPixel: Duration) -> Int {
        guard perPixel > .zero else { return .max }
        return Int(min(Double(Int.max / 2), max(0, (time / perPixel).rounded(.down))))
    }

    /// Throws `.imageTooLarge` for an original of `size` bytes past `maxSourceBytes`: asked of a
    /// local original before it is opened, and of a remote one before it is fetched.
    public func checkSource(size: Int) throws(ThumbnailError) {
        guard size <= maxSourceBytes else {
            throw ThumbnailError(
                .imageTooLarge, "Thumbnails are made of images up to \(maxSourceBytes / (1024 * 1024)) MB; this one has \(size) bytes.")
        }
    }
}
