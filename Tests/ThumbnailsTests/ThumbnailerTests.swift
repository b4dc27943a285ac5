import Foundation
import TestSupport
import Testing

@testable import Thumbnails

/// Thumbnails made with libvips, decoded with libvips: sizes, formats, and every bound.
@Suite struct ThumbnailerTests {
    /// A temporary directory of the test's own, removed after `body`.
    static func inDirectory<Value>(_ body: (String) async throws -> Value) async throws -> Value {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await body(directory)
    }

    /// Writes `bytes` to `name` in `directory`; its path.
    static func file(_ bytes: [UInt8], _ name: String, in directory: String) throws -> String {
        let path = directory + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Makes `spec` of `source` and decodes the answer.
    static func make(
        _ thumbnailer: Thumbnailer = Thumbnailer(), _ source: String, _ spec: ThumbnailSpec, in directory: String
    ) async throws -> (made: Thumbnailer.Made, decoded: ImageFixture.Decoded) {
        let output = directory + "/out-\(UUID().uuidString)"
        let made = try await thumbnailer.make(from: source, spec: spec, to: output, for: "test")
        let decoded = try ImageFixture.decode(Array(try Data(contentsOf: URL(fileURLWithPath: output))))
        return (made, decoded)
    }

    @Test(arguments: [ThumbnailSpec.Format.png, .jpg, .webp, .gif])
    func everyModeHasItsSizeAndFormat(source format: ThumbnailSpec.Format) async throws {
        try await Self.inDirectory { directory in
            let source = try Self.file(
                try ImageFixture.encoded(width: 640, height: 480, format: format), "source.\(format.rawValue)", in: directory)
            let cases: [(spec: ThumbnailSpec, width: Int, height: Int)] = [
                (ThumbnailSpec(mode: 0, width: 100, height: 100), 100, 75),
                (ThumbnailSpec(version: 1, mode: 1, width: 100, height: 100), 100, 100),
                (ThumbnailSpec(mode: 2, width: 100, height: 100), 100, 75),
                (ThumbnailSpec(mode: 2, height: 60), 80, 60),
                (ThumbnailSpec(mode: 3, width: 100, height: 100), 133, 100),
                (ThumbnailSpec(mode: 4, width: 200, height: 100), 200, 150),
                (ThumbnailSpec(mode: 5, width: 200, height: 100), 200, 100),
                (ThumbnailSpec(mode: 2, width: 2000, height: 2000), 640, 480),
            ]
            for item in cases {
                let (made, decoded) = try await Self.make(Thumbnailer(), source, item.spec, in: directory)
                #expect(decoded.width == item.width && decoded.height == item.height, "\(item.spec): \(decoded)")
                #expect(made.width == item.width && made.height == item.height, "\(item.spec): \(made)")
                // No format asked: the original's.
                #expect(decoded.format == format && made.format == format, "\(item.spec): \(decoded)")
            }
        }
    }

    @Test func theAskedFormatIsWritten() async throws {
        try await Self.inDirectory { directory in
            let source = try Self.file(try ImageFixture.encoded(width: 300, height: 200, format: .png, alpha: true), "a.png", in: directory)
            for format in ThumbnailSpec.Format.allCases {
                for interlace in [false, true] where !(interlace && format == .gif) {
                    let spec = ThumbnailSpec(mode: 1, width: 50, height: 50, quality: 30, format: format, interlace: interlace)
                    let (made, decoded) = try await Self.make(Thumbnailer(), source, spec, in: directory)
                    #expect(decoded.format == format && made.format == format, "\(spec): \(decoded)")
                    #expect(decoded.width == 50 && decoded.height == 50, "\(spec): \(decoded)")
                    // JPEG has no alpha: the image is put on white; the others keep it.
                    if format == .jpg { #expect(decoded.bands == 3, "\(decoded)") }
                    if format == .png || format == .webp { #expect(decoded.bands == 4, "\(decoded)") }
                }
            }
        }
    }

    @Test func aDecompressionBombIsRefusedFromItsHeader() async throws {
        try await Self.inDirectory { directory in
            for (width, height) in [(50_000, 50_000), (30_001, 10), (20_000, 20_000)] {
                let source = try Self.file(ImageFixture.pngClaiming(width: width, height: height), "bomb.png", in: directory)
                #expect(try Data(contentsOf: URL(fileURLWithPath: source)).count < 100)
                let error = await #expect(throws: ThumbnailError.self) {
                    try await Self.make(Thumbnailer(), source, ThumbnailSpec(mode: 2, width: 10), in: directory)
                }
                #expect(error?.kind == .imageTooLarge, "\(width)×\(height): \(String(describing: error))")
            }
            // Within the pixel limits the same lie is caught by the decoder: its rows are missing.
            let small = try Self.file(ImageFixture.pngClaiming(width: 2000, height: 2000), "lie.png", in: directory)
            let error = await #expect(throws: ThumbnailError.self) {
                try await Self.make(Thumbnailer(), small, ThumbnailSpec(mode: 2, width: 10), in: directory)
            }
            #expect(error?.kind == .notAnImage, "\(String(describing: error))")
        }
    }

    @Test func whatIsNoImageIsRefused() async throws {
        try await Self.inDirectory { directory in
            let png = try ImageFixture.encoded(width: 400, height: 400, format: .png)
            let files: [(String, [UInt8])] = [
                ("text.txt", Array("just some words".utf8)),
                ("empty.png", []),
                // SVG is read by librsvg, which libvips marks untrusted: refused.
                ("image.svg", Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#.utf8)),
                ("cut.png", Array(png.prefix(png.count / 3))),
                ("page.pdf", Array("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF".utf8)),
            ]
            for (name, bytes) in files {
                let source = try Self.file(bytes, name, in: directory)
                let error = await #expect(throws: ThumbnailError.self, "\(name)") {
                    try await Self.make(Thumbnailer(), source, ThumbnailSpec(mode: 2, width: 10), in: directory)
                }
                #expect(error?.kind == .notAnImage, "\(name): \(String(describing: error))")
                // libvips' error text (process-wide: other requests' paths) is never answered.
                #expect(error?.message.contains(directory) == false && error?.message.contains("/") == false, "\(String(describing: error))")
            }
        }
    }

    /// A GIF of `width`×`height` whose one frame is empty: 35 bytes whatever its size (an
    /// attacker's file: the decoder allocates the whole canvas).
    static func emptyGIF(width: Int, height: Int) -> [UInt8] {
        func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xff), UInt8(value >> 8)] }
        return Array("GIF89a".utf8) + le16(width) + le16(height) + [0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x2c]
            + le16(0) + le16(0) + le16(width) + le16(height) + [0, 0x02, 0x02, 0x44, 0x01, 0, 0x3b]
    }

    @Test func formatsDecodedWholeHaveASmallerPixelBound() async throws {
        try await Self.inDirectory { directory in
            // 5000×4000 (20 M pixels) is within the streamed formats' bound, past the buffered ones'.
            let bomb = try Self.file(Self.emptyGIF(width: 5000, height: 4000), "bomb.gif", in: directory)
            #expect(try Data(contentsOf: URL(fileURLWithPath: bomb)).count == 35)
            let error = await #expect(throws: ThumbnailError.self) {
                try await Self.make(Thumbnailer(), bomb, ThumbnailSpec(mode: 2, width: 10), in: directory)
            }
            #expect(error?.kind == .imageTooLarge && error?.message.contains("16777216") == true, "\(String(describing: error))")
            // Within the bound it is made.
            let small = try Self.file(Self.emptyGIF(width: 400, height: 300), "small.gif", in: directory)
            let made = try await Self.make(Thumbnailer(), small, ThumbnailSpec(mode: 2, width: 40), in: directory)
            #expect(made.decoded.width == 40 && made.decoded.height == 30)
        }
    }

    @Test func boundsOfTheOriginalAndTheThumbnail() async throws {
        try await Self.inDirectory { directory in
            let source = try Self.file(try ImageFixture.encoded(width: 600, height: 400, format: .png), "a.png", in: directory)
            var limits = ThumbnailLimits()
            limits.maxSourceBytes = 100
            var error = await #expect(throws: ThumbnailError.self) {
                try await Self.make(Thumbnailer(limits: limits), source, ThumbnailSpec(mode: 2, width: 10), in: directory)
            }
            #expect(error?.kind == .imageTooLarge)
            limits = ThumbnailLimits()
            limits.maxSide = 500
            error = await #expect(throws: ThumbnailError.self) {
                try await Self.make(Thumbnailer(limits: limits), source, ThumbnailSpec(mode: 3, width: 550), in: directory)
            }
            #expect(error?.kind == .thumbnailTooLarge)
            limits = ThumbnailLimits()
            limits.maxPixels = 1000
            error = await #expect(throws: ThumbnailError.self) {
                try await Self.make(Thumbnailer(limits: limits), source, ThumbnailSpec(mode: 2, width: 100), in: directory)
            }
            #expect(error?.kind == .thumbnailTooLarge)
        }
    }

    /// What an original costs in bytes, not only in pixels: libvips holds hundreds of its rows,
    /// so a wide original of 16 bits a band and four bands is refused from its header (a 16-bit
    /// RGBA PNG of 30 000 × 5 000 held 340 MB), while the same size in fewer bytes a pixel passes
    /// that bound (and is refused by the decoder, its rows missing: the files lie).
    @Test func aWideDeepOriginalIsRefusedByItsBytes() async throws {
        try await Self.inDirectory { directory in
            let cases: [(bitDepth: UInt8, colorType: UInt8, refused: Bool)] = [
                (16, 6, true),  // RGBA, 16 bits: 240 000 bytes a row
                (16, 2, true),  // RGB, 16 bits: 180 000
                (8, 6, false),  // RGBA, 8 bits: 120 000
                (16, 0, false),  // grey, 16 bits: 60 000
                (8, 0, false),  // grey, 8 bits: 30 000
            ]
            for item in cases {
                let bytes = ImageFixture.pngClaiming(width: 30_000, height: 5_000, bitDepth: item.bitDepth, colorType: item.colorType)
                let source = try Self.file(bytes, "wide.png", in: directory)
                let error = await #expect(throws: ThumbnailError.self) {
                    try await Self.make(Thumbnailer(), source, ThumbnailSpec(mode: 2, width: 100), in: directory)
                }
                if item.refused {
                    #expect(error?.kind == .imageTooLarge && error?.message.contains("MB of memory") == true, "\(item): \(String(describing: error))")
                } else {
                    #expect(error?.kind == .notAnImage, "\(item): \(String(describing: error))")
                }
            }
            // A larger thumbnail costs more: the 8-bit RGBA original kept at 9 000 pixels wide is refused.
            let rgba = try Self.file(ImageFixture.pngClaiming(width: 30_000, height: 5_000, colorType: 6), "rgba.png", in: directory)
            let error = await #expect(throws: ThumbnailError.self) {
                try await Self.make(Thumbnailer(), rgba, ThumbnailSpec(mode: 2, width: 9_000), in: directory)
            }
            #expect(error?.kind == .imageTooLarge, "\(String(describing: error))")
        }
    }

    /// GIF, WebP and HEIF are decoded in one call the time budget can't stop, so such an original
    /// may have only the pixels that decode in half the budget: with a budget of half a second,
    /// 1 666 666 (at `wholeDecodeTimePerPixel`, 150 ns).
    @Test func aWholeDecodedOriginalFitsInHalfTheTimeBudget() async throws {
        try await Self.inDirectory { directory in
            var limits = ThumbnailLimits()
            limits.timeBudget = .milliseconds(500)
            #expect(limits.wholeDecodePixels == 1_666_666)
            let large = try Self.file(try ImageFixture.encoded(width: 1600, height: 1200, format: .webp), "large.webp", in: directory)
            let error = await #expect(throws: ThumbnailError.self) {
                try await Self.make(Thumbnailer(limits: limits), large, ThumbnailSpec(mode: 2, width: 100), in: directory)
            }
            #expect(error?.kind == .imageTooLarge && error?.message.contains("1666666") == true, "\(String(describing: error))")
            // A PNG of that size streams (the budget stops it between strips): made.
            let png = try Self.file(try ImageFixture.encoded(width: 1600, height: 1200, format: .png), "large.png", in: directory)
            #expect(try await Self.make(Thumbnailer(limits: limits), png, ThumbnailSpec(mode: 2, width: 100), in: directory).decoded.width == 100)
            let small = try Self.file(try ImageFixture.encoded(width: 1000, height: 1000, format: .webp), "small.webp", in: directory)
            let made = try await Self.make(Thumbnailer(limits: limits), small, ThumbnailSpec(mode: 2, width: 100), in: directory)
            #expect(made.decoded.width == 100 && made.decoded.height == 100 && made.decoded.format == .webp)
            // With the default budget (10 s) the bound is the buffer's.
            #expect(ThumbnailLimits().wholeDecodePixels == ThumbnailLimits().maxBufferedPixels)
        }
    }

    /// WebP and GIF thumbnails are encoded whole, in one call (libwebp held 640 MB and 6 s for
    /// 4096 × 4096): held to `maxWholeEncodePixels`; the streamed formats to the thumbnail bound.
    @Test func webpAndGIFThumbnailsHaveASmallerPixelBound() async throws {
        try await Self.inDirectory { directory in
            let source = try Self.file(try ImageFixture.encoded(width: 300, height: 200, format: .png), "a.png", in: directory)
            var limits = ThumbnailLimits()
            limits.maxWholeEncodePixels = 10_000
            for format in [ThumbnailSpec.Format.webp, .gif] {
                let error = await #expect(throws: ThumbnailError.self) {
                    try await Self.make(Thumbnailer(limits: limits), source, ThumbnailSpec(mode: 2, width: 150, format: format), in: directory)
                }
                #expect(error?.kind == .thumbnailTooLarge && error?.message.contains("10000") == true, "\(String(describing: error))")
                let made = try await Self.make(Thumbnailer(limits: limits), source, ThumbnailSpec(mode: 2, width: 120, format: format), in: directory)
                #expect(made.decoded.width == 120 && made.decoded.height == 80 && made.decoded.format == format)
            }
            let png = try await Self.make(Thumbnailer(limits: limits), source, ThumbnailSpec(mode: 2, width: 150, format: .png), in: directory)
            #expect(png.decoded.width == 150)
        }
    }

    /// An original averaged down by whole factors before the resize (and a JPEG or WebP shrunk
    /// on load) still gets its exact size, its alpha kept, odd sides included.
    @Test func aPreShrunkOriginalHasItsExactSize() async throws {
        try await Self.inDirectory { directory in
            for format in [ThumbnailSpec.Format.png, .webp, .jpg] {
                let source = try Self.file(
                    try ImageFixture.encoded(width: 4001, height: 2999, format: format, alpha: format != .jpg), "big.\(format.rawValue)", in: directory)
                for (spec, width, height) in [
                    (ThumbnailSpec(mode: 2, width: 101), 101, 76), (ThumbnailSpec(mode: 1, width: 99, height: 99), 99, 99),
                    (ThumbnailSpec(mode: 2, height: 31), 41, 31),
                ] {
                    let made = try await Self.make(Thumbnailer(), source, spec, in: directory)
                    #expect(made.decoded.width == width && made.decoded.height == height, "\(format) \(spec): \(made.decoded)")
                    #expect(made.decoded.bands == (format == .jpg ? 3 : 4), "\(format) \(spec): \(made.decoded)")
                }
            }
        }
    }

    /// A budget already spent when the pipeline starts: libvips' kill flag is set before any
    /// pixel is computed, so the outcome doesn't depend on the machine's speed.
    @Test func theTimeBudgetStopsThePipeline() async throws {
        try await Self.inDirectory { directory in
            let source = directory + "/big.png"
            try ImageFixture.write(width: 3000, height: 3000, format: .png, to: source)
            var limits = ThumbnailLimits()
            limits.timeBudget = .zero
            let output = directory + "/out.png"
            let error = await #expect(throws: ThumbnailError.self) {
                try await Thumbnailer(limits: limits).make(from: source, spec: ThumbnailSpec(mode: 2, width: 100), to: output, for: "test")
            }
            #expect(error?.kind == .timedOut, "\(String(describing: error))")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
    }

    @Test func pastTheSlotsARequestIsRefused() async throws {
        try await Self.inDirectory { directory in
            let source = try Self.file(try ImageFixture.encoded(width: 60, height: 40, format: .png), "a.png", in: directory)
            let gate = ThumbnailGate(slots: 1, maxWait: .zero)
            #expect(await gate.enter(client: "a"))
            let error = await #expect(throws: ThumbnailError.self) {
                try await Self.make(Thumbnailer(gate: gate), source, ThumbnailSpec(mode: 2, width: 10), in: directory)
            }
            #expect(error?.kind == .busy)
            gate.leave(client: "a")
            #expect(try await Self.make(Thumbnailer(gate: gate), source, ThumbnailSpec(mode: 2, width: 10), in: directory).decoded.width == 10)
            #expect(gate.busySlots == 0)
        }
    }
}
