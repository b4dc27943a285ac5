import Foundation
import TestSupport
import Testing

@testable import Thumbnails

/// A large original resized within a memory bound. Serialized, and alone in its suite, so the
/// figure read is this test's (other suites' thumbnails are small).
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
            let decodedBytes = 8000 * 8000 * 3
            #expect(Vips.pixelMemoryHighWater < decodedBytes / 3, "libvips held \(Vips.pixelMemoryHighWater) bytes at most")
        }
    }
}
