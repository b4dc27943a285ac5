import Foundation
import TestSupport
import Testing

@testable import Thumbnails

/// The thumbnails' second attack review: originals whose header work costs more than their
/// size says (text chunks that inflate, chained TIFF pages), and thumbnails an encoder holds
/// whole. Each is refused before libvips does the work.
@Suite struct ThumbnailAttackTests {
    /// Makes `spec` of `source`, expecting a refusal of `kind` whose message says `words`.
    static func expectRefused(
        _ source: String, _ spec: ThumbnailSpec, _ kind: ThumbnailError.Kind, saying words: String, in directory: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await #expect(throws: ThumbnailError.self, sourceLocation: sourceLocation) {
            try await Thumbnailer().make(from: source, spec: spec, to: directory + "/out-\(UUID().uuidString)", for: "test")
        }
        #expect(error?.kind == kind && error?.message.contains(words) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
    }

    @Test func attackPNGTextChunksPastTheBoundAreRefusedBeforeLibvipsReadsThem() async throws {
        try await ThumbnailerTests.inDirectory { directory in
            // 40 zTXt chunks of 1 MB each once inflated, 40 KB in the file.
            let bomb = try ThumbnailerTests.file(HostileImages.pngWithTextBomb(chunks: 40, inflatedBytes: 1 << 20), "bomb.png", in: directory)
            await Self.expectRefused(bomb, ThumbnailSpec(mode: 2, width: 8), .imageTooLarge, saying: "inflates to more than", in: directory)
            // Three of 1 MB are past the 2 MB of metadata; twelve small ones past the count.
            let three = try ThumbnailerTests.file(HostileImages.pngWithTextBomb(chunks: 3, inflatedBytes: 1 << 20), "three.png", in: directory)
            await Self.expectRefused(three, ThumbnailSpec(mode: 2, width: 8), .imageTooLarge, saying: "inflates to more than", in: directory)
            for type in ["iTXt", "iCCP"] {
                let one = try ThumbnailerTests.file(
                    HostileImages.pngWithTextBomb(chunks: 1, inflatedBytes: 3 << 20, type: type), "\(type).png", in: directory)
                await Self.expectRefused(one, ThumbnailSpec(mode: 2, width: 8), .imageTooLarge, saying: "inflates to more than", in: directory)
            }
            let twelve = try ThumbnailerTests.file(HostileImages.pngWithTextBomb(chunks: 12, inflatedBytes: 1000), "twelve.png", in: directory)
            await Self.expectRefused(twelve, ThumbnailSpec(mode: 2, width: 8), .imageTooLarge, saying: "compressed", in: directory)
            // Many small text chunks, and a few large ones, are refused too.
            let many = try ThumbnailerTests.file(HostileImages.pngWithTextChunks(count: 100, size: 16), "many.png", in: directory)
            await Self.expectRefused(many, ThumbnailSpec(mode: 2, width: 8), .imageTooLarge, saying: "metadata chunks", in: directory)
            let large = try ThumbnailerTests.file(HostileImages.pngWithTextChunks(count: 3, size: 600_000), "large.png", in: directory)
            await Self.expectRefused(large, ThumbnailSpec(mode: 2, width: 8), .imageTooLarge, saying: "bytes of metadata", in: directory)
            // Within the bounds: made, as an ordinary PNG with a little text is.
            for (name, bytes) in [
                ("few.png", HostileImages.pngWithTextBomb(chunks: 2, inflatedBytes: 1000)),
                ("itxt.png", HostileImages.pngWithTextBomb(chunks: 1, inflatedBytes: 1 << 20, type: "iTXt")),
                ("text.png", HostileImages.pngWithTextChunks(count: 10, size: 1000)),
            ] {
                let source = try ThumbnailerTests.file(bytes, name, in: directory)
                let (made, decoded) = try await ThumbnailerTests.make(Thumbnailer(), source, ThumbnailSpec(mode: 2, width: 8), in: directory)
                #expect(made.width == 8 && decoded.width == 8 && decoded.height == 8, "\(name): \(decoded)")
            }
        }
    }

    /// The pre-scan reads every chunk header of a PNG: a file of the largest size made only of
    /// empty chunks is walked in bounded time (and libpng reads it as the image it is).
    @Test func attackAChunkListAsLongAsTheFileIsWalkedQuickly() async throws {
        try await ThumbnailerTests.inDirectory { directory in
            let source = try ThumbnailerTests.file(HostileImages.pngOfManyChunks(1_700_000), "chunks.png", in: directory)
            #expect(try FileManager.default.attributesOfItem(atPath: source)[.size] as? Int ?? 0 > 20_000_000)
            var limits = ThumbnailLimits()
            limits.maxSourceBytes = 21 * 1024 * 1024
            let started = ContinuousClock.now
            let (made, _) = try await ThumbnailerTests.make(Thumbnailer(limits: limits), source, ThumbnailSpec(mode: 2, width: 8), in: directory)
            #expect(made.width == 8)
            #expect(ContinuousClock.now - started < .seconds(10), "\(ContinuousClock.now - started)")
        }
    }

    @Test func attackATIFFOfManyChainedPagesIsRefusedFromItsDirectories() async throws {
        try await ThumbnailerTests.inDirectory { directory in
            let chained = try ThumbnailerTests.file(HostileImages.tiffWithPages(5000), "pages.tif", in: directory)
            let started = ContinuousClock.now
            await Self.expectRefused(chained, ThumbnailSpec(mode: 2, width: 1), .imageTooLarge, saying: "pages", in: directory)
            #expect(ContinuousClock.now - started < .seconds(5))
            // A TIFF of a few pages is no image thumbnails are made of either: libtiff copies every
            // tag at open and decodes tiles and planes whole, which no header bound can see.
            let few = try ThumbnailerTests.file(HostileImages.tiffWithPages(3), "few.tif", in: directory)
            await Self.expectRefused(few, ThumbnailSpec(mode: 2, width: 1), .notAnImage, saying: "JPEG, PNG, WebP, GIF, HEIF", in: directory)
        }
    }

    @Test func attackLargeThumbnailsOfEncodersThatHoldTheWholeOutputAreRefused() async throws {
        try await ThumbnailerTests.inDirectory { directory in
            let source = directory + "/large.png"
            try ImageFixture.write(width: 2100, height: 2100, format: .png, to: source)
            let whole: [ThumbnailSpec] = [
                ThumbnailSpec(mode: 2, width: 2100, format: .webp),
                ThumbnailSpec(mode: 2, width: 2100, format: .gif),
                ThumbnailSpec(mode: 2, width: 2100, format: .png, interlace: true),
                ThumbnailSpec(mode: 2, width: 2100, format: .jpg, interlace: true),
            ]
            for spec in whole {
                await Self.expectRefused(source, spec, .thumbnailTooLarge, saying: "would be 2100×2100", in: directory)
            }
            // The streaming encoders make it; the others make it at the bound (2048×2048).
            for spec in [ThumbnailSpec(mode: 2, width: 2100, format: .png), ThumbnailSpec(mode: 2, width: 2100, format: .jpg)] {
                let (made, _) = try await ThumbnailerTests.make(Thumbnailer(), source, spec, in: directory)
                #expect(made.width == 2100 && made.height == 2100, "\(spec)")
            }
            let (made, decoded) = try await ThumbnailerTests.make(
                Thumbnailer(), source, ThumbnailSpec(mode: 2, width: 2048, format: .webp), in: directory)
            #expect(made.width == 2048 && decoded.width == 2048 && decoded.format == .webp, "\(decoded)")
        }
    }
}
