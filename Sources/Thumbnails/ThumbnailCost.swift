/// The memory libvips holds for one thumbnail, estimated from the original's header, before any
/// pixel is decoded (`ThumbnailLimits.maxWorkingBytes` bounds it).
///
/// libvips streams an original top to bottom, but each stage of the pipeline keeps many of its
/// rows: measured with `vips_tracked_get_mem_highwater` on 30 000-pixel-wide PNGs and JPEGs
/// (8-bit RGB and RGBA, 16-bit grey and RGBA, CMYK), the loader holds up to about 630 rows of
/// the original, and the resize up to about 1 200 rows of the image it works on, in 4-byte
/// floats when the image has alpha (premultiplied), more than 8 bits a band, or is CMYK (turned
/// into sRGB). The original is first averaged down by whole factors while the thumbnail stays at
/// least half of it (`Thumbnailer`'s pre-shrink), so the resize works on rows at most about
/// four times the thumbnail's width. The constants are those measurements with a margin.
struct ThumbnailCost: Sendable, Equatable {
    /// Rows of the original the loader holds at most.
    static let loaderRows = 800
    /// Rows of the resized-from image the resize holds at most.
    static let workingRows = 1300

    /// The estimate, in bytes.
    let bytes: Int

    /// The cost of resizing an original of `width` pixels, `bands` bands of `bytesPerBand`
    /// bytes, to a thumbnail `scaledWidth` wide; `floating` when libvips works on it in floats.
    init(width: Int, bands: Int, bytesPerBand: Int, floating: Bool, scaledWidth: Int) {
        let sourceRow = width * bands * bytesPerBand
        let shrink = Self.preShrink(width, to: scaledWidth)
        let workingWidth = (width + shrink - 1) / shrink
        let workingRow = workingWidth * bands * (floating ? max(4, bytesPerBand) : bytesPerBand)
        bytes = Self.loaderRows * sourceRow + Self.workingRows * workingRow
    }

    /// The whole factor `length` is averaged down by before the resize to `target`: as much as
    /// leaves at least twice the target (the resize's filter does the rest, for its quality).
    static func preShrink(_ length: Int, to target: Int) -> Int {
        max(1, length / (2 * max(1, target)))
    }
}
