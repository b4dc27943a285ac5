/// The bound on what a thumbnail's encoder holds. JPEG (baseline) and PNG (not interlaced) are
/// written a strip at a time as the pipeline makes them; libwebp, cgif (GIF), and libvips'
/// interlaced PNG and progressive JPEG writers take the whole thumbnail in memory first and
/// can't be stopped while they encode: a 25 M-pixel WebP of a 97 KB original took 581 MB and
/// 12 s. Those are held to `ThumbnailLimits.maxBufferedOutputPixels`.
extension ThumbnailLimits {
    /// Whether `format` (interlaced or not) is encoded from the whole thumbnail in memory.
    static func encodesWhole(_ format: ThumbnailSpec.Format, interlace: Bool) -> Bool {
        switch format {
        case .webp, .gif: true
        case .png, .jpg: interlace
        }
    }

    /// Throws `.thumbnailTooLarge` when a `width`×`height` thumbnail in `format` is past the
    /// bound of its encoder.
    func checkOutput(width: Int, height: Int, format: ThumbnailSpec.Format, interlace: Bool) throws(ThumbnailError) {
        guard Self.encodesWhole(format, interlace: interlace), width * height > maxBufferedOutputPixels else { return }
        throw ThumbnailError(
            .thumbnailTooLarge,
            "The thumbnail would be \(width)×\(height); WebP, GIF and interlaced thumbnails are up to \(maxBufferedOutputPixels) pixels."
        )
    }
}
