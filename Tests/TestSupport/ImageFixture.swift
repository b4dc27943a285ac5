import CVips
import Foundation
package import Thumbnails

/// Images for the thumbnail suites, made and decoded with libvips itself.
package enum ImageFixture {
    /// A failure of libvips in a fixture.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// A decoded image: its size, bands and format (from the loader that read it).
    package struct Decoded: Sendable, Equatable {
        package var width: Int
        package var height: Int
        package var bands: Int
        package var format: ThumbnailSpec.Format?
    }

    /// An image of `width`×`height` whose pixels vary with x and y (RGB, or RGBA with `alpha`),
    /// encoded as `format`.
    package static func encoded(width: Int, height: Int, format: ThumbnailSpec.Format, alpha: Bool = false) throws -> [UInt8] {
        try withPattern(width: width, height: height, alpha: alpha) { image in
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            guard fh_vips_encode(image, "." + format.rawValue, &buffer, &length) == 0, let buffer else {
                throw Failure(description: "encode: \(Vips.takeError())")
            }
            defer { g_free(buffer) }
            return Array(UnsafeRawBufferPointer(start: buffer, count: length))
        }
    }

    /// Writes such an image to the file at `path`, streamed (the pattern is computed a strip at
    /// a time, so a large one never sits whole in memory).
    package static func write(width: Int, height: Int, format: ThumbnailSpec.Format, to path: String) throws {
        try withPattern(width: width, height: height, alpha: false) { image in
            let result: Int32 =
                switch format {
                case .jpg: fh_vips_save_jpeg(image, path, 85, 0)
                case .png: fh_vips_save_png(image, path, 0)
                case .webp: fh_vips_save_webp(image, path, 75)
                case .gif: fh_vips_save_gif(image, path)
                }
            guard result == 0 else { throw Failure(description: "write: \(Vips.takeError())") }
        }
    }

    /// Writes an image of `bands` bands (1 grey, 2 grey and alpha, 3 RGB, 4 RGBA, or CMYK with
    /// `cmyk`) of 16 bits a band with `deep`, else 8, to `path`, in the format its suffix names;
    /// streamed, as `write(width:height:format:to:)`.
    package static func write(width: Int, height: Int, bands: Int, deep: Bool, cmyk: Bool = false, to path: String) throws {
        guard Vips.started, let image = fh_vips_pattern_of(Int32(width), Int32(height), Int32(bands), deep ? 1 : 0, cmyk ? 1 : 0) else {
            throw Failure(description: "pattern: \(Vips.takeError())")
        }
        defer { g_object_unref(image) }
        guard fh_vips_write(image, path) == 0 else { throw Failure(description: "write: \(Vips.takeError())") }
    }

    private static func withPattern<Value>(
        width: Int, height: Int, alpha: Bool, _ body: (UnsafeMutablePointer<VipsImage>) throws -> Value
    ) throws -> Value {
        guard Vips.started, let image = fh_vips_pattern(Int32(width), Int32(height), alpha ? 4 : 3) else {
            throw Failure(description: "pattern: \(Vips.takeError())")
        }
        defer { g_object_unref(image) }
        return try body(image)
    }

    /// Decodes every pixel of `bytes`; throws when they are no whole image.
    package static func decode(_ bytes: [UInt8]) throws -> Decoded {
        guard Vips.started else { throw Failure(description: "libvips did not start") }
        return try bytes.withUnsafeBytes { raw in
            var loader: UnsafePointer<CChar>?
            guard let image = fh_vips_decode(raw.baseAddress, raw.count, &loader) else {
                throw Failure(description: "decode: \(Vips.takeError())")
            }
            defer { g_object_unref(image) }
            let name = loader.map { String(cString: $0) } ?? ""
            let format: ThumbnailSpec.Format? =
                switch name {
                case "VipsForeignLoadJpegBuffer": .jpg
                case "VipsForeignLoadPngBuffer": .png
                case "VipsForeignLoadWebpBuffer": .webp
                case "VipsForeignLoadNsgifBuffer": .gif
                default: nil
                }
            return Decoded(
                width: Int(vips_image_get_width(image)), height: Int(vips_image_get_height(image)),
                bands: Int(vips_image_get_bands(image)), format: format)
        }
    }

    /// A decompression bomb: a PNG of a few dozen bytes whose header declares `width`×`height`
    /// pixels of PNG's `colorType` (0 grey, 2 RGB, 4 grey and alpha, 6 RGBA) and `bitDepth` (its
    /// one data chunk holds a few empty rows; a decoder trusting the header would allocate for
    /// all of them).
    package static func pngClaiming(width: Int, height: Int, bitDepth: UInt8 = 8, colorType: UInt8 = 0) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [bitDepth, colorType, 0, 0, 0]  // deflate, no filter method, no interlace
        bytes += chunk("IHDR", header)
        // A zlib stream with one stored block of 16 zero bytes, and its Adler-32.
        let zeros = [UInt8](repeating: 0, count: 16)
        let stored: [UInt8] = [0x78, 0x01, 0x01, 16, 0, 0xEF, 0xFF] + zeros + bigEndian(UInt32(16 << 16 | 1))
        bytes += chunk("IDAT", stored)
        bytes += chunk("IEND", [])
        return bytes
    }

    /// A PNG chunk: its length, type, data and CRC.
    package static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    /// `value`'s four bytes, most significant first.
    package static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// PNG's CRC-32 (ISO 3309, reflected 0xEDB88320).
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
