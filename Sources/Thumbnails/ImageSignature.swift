/// The first bytes of the formats `Thumbnailer.loaders` reads (JPEG, PNG, GIF, WebP, HEIF): what
/// a remote store is asked for before a whole original is fetched. Kept beside the loaders, so
/// the two name the same formats.
public enum ImageSignature {
    /// How many bytes tell the formats apart.
    public static let length = 12

    /// Whether `head` (the file's first `length` bytes) starts one of the formats.
    public static func matches(_ head: [UInt8]) -> Bool {
        guard head.count >= length else { return false }
        let ascii = { (range: Range<Int>) in String(decoding: head[range], as: UTF8.self) }
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return true }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return true }
        if ascii(0..<4) == "GIF8" { return true }
        if ascii(0..<4) == "RIFF", ascii(8..<12) == "WEBP" { return true }
        // HEIF and AVIF: an ISO base media file, its `ftyp` box first.
        return ascii(4..<8) == "ftyp"
    }
}
