import Foundation
import TestSupport
import Testing

@testable import Thumbnails

/// Large originals and thumbnails within a memory bound. Serialized, and alone in its run, so the
/// figures read are each test's (other suites' thumbnails are small): libvips' own high-water
/// mark, and the process's peak resident memory (`VmHWM`, reset before each measure).
@Suite(.serialized) struct ThumbnailMemoryTests {
    /// 8000×8000 RGB is 192 MB decoded. The thumbnail is made from a sequential read, so libvips
    /// holds strips as wide as the image, never the whole of it. Measured with libvips' own count
    /// of the bytes it allocated for pixels, `vips_tracked_get_mem_highwater` (the high-water mark
    /// of every image buffer, tile and line cache of the process since it started: the writing of
    /// the originals included, so it is an upper bound): it stays under a third of the decoded
    /// size (about 50 MB when measured, 14 MB of it writing the PNG original; the JPEG, decoded
    /// at 1/8 by shrink-on-load, adds nothing).
    @Test(arguments: [ThumbnailSpec.Format.png, .jpg])
    func aLargeImageIsResizedWithinAMemoryBound(format: ThumbnailSpec.Format) async throws {
        try await ThumbnailerTests.inDirectory { directory in
            let source = directory + "/large.\(format.rawValue)"
            try ImageFixture.write(width: 8000, height: 8000, format: format, to: source)
            var limits = ThumbnailLimits()
            limits.maxSourceBytes = 200 * 1024 * 1024
            limits.timeBudget = .seconds(600)
            let (made, decoded) = try await ThumbnailerTests.make(
                Thumbnailer(limits: limits), source, ThumbnailSpec(mode: 2, width: 400, height: 300, format: .png), in: directory)
            #expect(decoded.width == 300 && decoded.height == 300 && made.format == .png, "\(decoded)")
            #expect(Vips.pixelMemoryHighWater < Self.bound, "libvips held \(Vips.pixelMemoryHighWater) bytes at most")
        }
    }

    /// The bound every test here holds libvips to: a third of the 8000×8000 RGB original's
    /// decoded size (the high-water mark is the process's, so each test's bound is the same).
    static let bound = 8000 * 8000 * 3 / 3

    /// Wide originals of other depths and bands, within the byte bound: their rows are averaged
    /// down before the resize, and a WebP is decoded at the thumbnail's scale, so none costs
    /// what its row or its whole decode would (before, the 15 000-pixel RGBA PNG held 108 MB and
    /// the WebP 270 MB).
    @Test(arguments: [
        Wide(name: "rgba.png", width: 15_000, height: 3_000, bands: 4, deep: false, cmyk: false, thumbnailWidth: 100),
        Wide(name: "grey16.png", width: 15_000, height: 3_000, bands: 1, deep: true, cmyk: false, thumbnailWidth: 100),
        Wide(name: "rgba16.png", width: 7_000, height: 3_000, bands: 4, deep: true, cmyk: false, thumbnailWidth: 100),
        Wide(name: "cmyk.jpg", width: 15_000, height: 3_000, bands: 4, deep: false, cmyk: true, thumbnailWidth: 1000),
        Wide(name: "rgb.webp", width: 3_000, height: 3_000, bands: 3, deep: false, cmyk: false, thumbnailWidth: 100),
    ])
    func aWideOrDeepImageIsResizedWithinTheMemoryBound(_ wide: Wide) async throws {
        try await ThumbnailerTests.inDirectory { directory in
            let source = directory + "/" + wide.name
            try ImageFixture.write(width: wide.width, height: wide.height, bands: wide.bands, deep: wide.deep, cmyk: wide.cmyk, to: source)
            var limits = ThumbnailLimits()
            limits.maxSourceBytes = 200 * 1024 * 1024
            limits.timeBudget = .seconds(600)
            let (made, decoded) = try await ThumbnailerTests.make(
                Thumbnailer(limits: limits), source, ThumbnailSpec(mode: 2, width: wide.thumbnailWidth, format: .png), in: directory)
            #expect(decoded.width == wide.thumbnailWidth && made.format == .png, "\(decoded)")
            #expect(Vips.pixelMemoryHighWater < Self.bound, "\(wide.name): libvips held \(Vips.pixelMemoryHighWater) bytes at most")
        }
    }

    /// An original for `aWideOrDeepImageIsResizedWithinTheMemoryBound`.
    struct Wide: Sendable, CustomTestStringConvertible {
        var name: String
        var width: Int
        var height: Int
        var bands: Int
        var deep: Bool
        var cmyk: Bool
        var thumbnailWidth: Int
        var testDescription: String { name }
    }

    /// A 25 M-pixel WebP thumbnail (inside Qiniu's thumbnail bound) would be held whole by
    /// libwebp (+133 MB for RGB when measured, outside libvips' count): it is refused before any
    /// of it is made. The largest WebP made, 2048×2048, stays under 128 MB at its peak.
    @Test func aWebPThumbnailIsBoundedBeforeTheEncoderHoldsIt() async throws {
        try await ThumbnailerTests.inDirectory { directory in
            let source = directory + "/large.png"
            try ImageFixture.write(width: 5000, height: 4999, format: .png, to: source)
            var before = try Self.resetPeakResident()
            let refused = await #expect(throws: ThumbnailError.self) {
                try await Thumbnailer().make(
                    from: source, spec: ThumbnailSpec(mode: 2, width: 9999, height: 9999, format: .webp), to: directory + "/big.webp", for: "test")
            }
            #expect(refused?.kind == .thumbnailTooLarge, "\(String(describing: refused))")
            var grown = try Self.status("VmHWM") - before
            #expect(grown < 32 << 20, "the process's peak grew by \(grown) bytes")
            before = try Self.resetPeakResident()
            let (made, _) = try await ThumbnailerTests.make(
                Thumbnailer(), source, ThumbnailSpec(mode: 2, width: 2048, height: 2048, format: .webp), in: directory)
            #expect(made.width == 2048)
            grown = try Self.status("VmHWM") - before
            #expect(grown < 128 << 20, "the process's peak grew by \(grown) bytes")
        }
    }

    /// A PNG of text chunks that inflate to 40 MB (libpng inflates each, libvips keeps them all
    /// as the image's metadata, outside its pixel count, and copies them: 1.2 GB at the peak for
    /// 160 MB of text when measured): refused from its chunk list, so the process's peak
    /// resident memory does not grow by them.
    @Test func aPNGTextBombIsRefusedBeforeItIsInflated() async throws {
        try await ThumbnailerTests.inDirectory { directory in
            let bomb = try ThumbnailerTests.file(HostileImages.pngWithTextBomb(chunks: 10, inflatedBytes: 4 << 20), "bomb.png", in: directory)
            let before = try Self.resetPeakResident()
            let refused = await #expect(throws: ThumbnailError.self) {
                try await Thumbnailer().make(from: bomb, spec: ThumbnailSpec(mode: 2, width: 8), to: directory + "/out.png", for: "test")
            }
            #expect(refused?.kind == .imageTooLarge, "\(String(describing: refused))")
            let grown = try Self.status("VmHWM") - before
            #expect(grown < 32 << 20, "the process's peak grew by \(grown) bytes")
        }
    }

    /// Resets the process's peak resident memory to what it holds now (`clear_refs` 5), and
    /// returns that.
    static func resetPeakResident() throws -> Int {
        let handle = try #require(FileHandle(forWritingAtPath: "/proc/self/clear_refs"))
        defer { try? handle.close() }
        try handle.write(contentsOf: Data("5".utf8))
        return try status("VmRSS")
    }

    /// A size line of `/proc/self/status` ("VmHWM:   123 kB"), in bytes.
    static func status(_ name: String) throws -> Int {
        let text = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
}
