import DataAPI
import NIOCore

/// The first bytes of the image formats thumbnails are made of (JPEG, PNG, GIF, WebP, HEIF):
/// read from a remote store before a whole original is fetched.
enum ImageSignature {
    /// How many bytes tell the formats apart.
    static let length = 12

    /// Whether the content under `key` starts as an image thumbnails are made of; false for a
    /// missing or shorter one.
    static func matches(store: any FileContentStore, key: String, size: Int) async throws -> Bool {
        guard size >= length, let stream = try await store.read(key: key, range: 0...(length - 1)) else { return false }
        var head: [UInt8] = []
        try await stream.forEach { head += $0.readableBytesView }
        return matches(head)
    }

    /// Whether `head` starts one of the formats.
    static func matches(_ head: [UInt8]) -> Bool {
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
