import Testing
import Thumbnails

/// Reading `imageView` commands from a URL's query, and what each mode's size is.
@Suite struct ThumbnailSpecTests {
    @Test func theSDKsURLsAreRead() throws {
        // The JS SDK's `thumbnailURL(100, 80)` and the Objective-C SDK's `getThumbnail`.
        let js = try #require(try ThumbnailSpec.parse(query: "imageView/2/w/100/h/80/q/100/format/png"))
        #expect(js == ThumbnailSpec(version: 1, mode: 2, width: 100, height: 80, quality: 100, format: .png))
        let objc = try #require(try ThumbnailSpec.parse(query: "imageView/1/w/100/h/100"))
        #expect(objc.mode == 1 && objc.quality == 85 && objc.format == nil)
        let full = try #require(
            try ThumbnailSpec.parse(query: "imageView2/5/w/30/h/20/format/JPEG/interlace/1/q/40/ignore-error/1&attname=x"))
        #expect(full == ThumbnailSpec(mode: 5, width: 30, height: 20, quality: 40, format: .jpg, interlace: true, ignoresErrors: true))
        #expect(try ThumbnailSpec.parse(query: "imageView2/0/")?.quality == 75)
        #expect(full.normalized == "imageView2/5/w/30/h/20/q/40/format/jpg/interlace/1")
        // Other queries are no thumbnail (Qiniu answers the file for a command it doesn't know).
        for query in ["", "v=2", "imageView2format/webp", "imageMogr2/thumbnail/100x", "imageview2/2/w/10"] {
            #expect(try ThumbnailSpec.parse(query: query) == nil, "\(query)")
        }
    }

    @Test func badCommandsAreRefused() {
        let bad = [
            "imageView2/", "imageView2/6/w/10", "imageView/0/w/10", "imageView/3/w/10", "imageView2/-1", "imageView2/2/w",
            "imageView2/2/w/0", "imageView2/2/w/10000", "imageView2/2/h/99999999999999999999", "imageView2/2/w/+5",
            "imageView2/2/w/1e3", "imageView2/2/w/ 5", "imageView2/2/q/0", "imageView2/2/q/101", "imageView2/2/format/bmp",
            "imageView2/2/format/svg", "imageView2/2/format/", "imageView2/2/interlace/2", "imageView2/2/w/10/w/20",
            "imageView2/2/colour/red", "imageView2/2//w/10", "imageView2/2/w/10//", "imageView2/2/w/%31%30",
            "imageView2/2/w/١٠", "imageView2/2/" + String(repeating: "w/1/", count: 80),
        ]
        for query in bad {
            #expect(throws: ThumbnailError.self, "\(query)") { try ThumbnailSpec.parse(query: query) }
            do {
                _ = try ThumbnailSpec.parse(query: query)
            } catch {
                #expect(error.kind == .badParameters && !error.message.isEmpty, "\(query)")
            }
        }
    }

    @Test(arguments: [
        // (mode, w, h, source) -> scaled, answer
        (0, 100, 50, 1000, 500, 100, 50, 100, 50), (0, 100, 40, 500, 1000, 40, 80, 40, 80), (0, 100, nil, 500, 1000, 50, 100, 50, 100),
        (0, nil, 100, 1000, 500, 200, 100, 200, 100),
        (1, 100, 100, 1000, 500, 200, 100, 100, 100), (1, 100, nil, 500, 1000, 100, 200, 100, 100),
        (1, 300, 300, 200, 100, 200, 100, 200, 100),
        (2, 100, 100, 1000, 500, 100, 50, 100, 50), (2, nil, 100, 1000, 500, 200, 100, 200, 100), (2, 5000, 5000, 640, 480, 640, 480, 640, 480),
        (3, 100, 100, 1000, 500, 200, 100, 200, 100), (3, nil, 50, 500, 1000, 50, 100, 50, 100),
        (4, 100, 60, 500, 1000, 60, 120, 60, 120), (4, 100, nil, 1000, 500, 200, 100, 200, 100),
        (5, 100, 60, 500, 1000, 60, 120, 60, 100), (5, 100, 60, 1000, 500, 120, 60, 100, 60),
    ] as [(Int, Int?, Int?, Int, Int, Int, Int, Int, Int)])
    func eachModeHasQiniusSize(
        _ item: (mode: Int, w: Int?, h: Int?, sourceW: Int, sourceH: Int, scaledW: Int, scaledH: Int, width: Int, height: Int)
    ) {
        let geometry = ThumbnailGeometry(
            sourceWidth: item.sourceW, sourceHeight: item.sourceH, spec: ThumbnailSpec(mode: item.mode, width: item.w, height: item.h))
        #expect(geometry.scaledWidth == item.scaledW && geometry.scaledHeight == item.scaledH, "\(item) -> \(geometry)")
        #expect(geometry.width == item.width && geometry.height == item.height, "\(item) -> \(geometry)")
    }

    @Test func nothingIsEnlargedOrEmpty() {
        for mode in 0...5 {
            for (w, h) in [(9999, 9999), (1, 1), (1, 9999)] {
                let geometry = ThumbnailGeometry(sourceWidth: 3, sourceHeight: 7000, spec: ThumbnailSpec(mode: mode, width: w, height: h))
                #expect(geometry.scaledWidth >= 1 && geometry.scaledWidth <= 3, "\(mode) \(w) \(h): \(geometry)")
                #expect(geometry.scaledHeight >= 1 && geometry.scaledHeight <= 7000, "\(mode) \(w) \(h): \(geometry)")
                #expect(geometry.width <= geometry.scaledWidth && geometry.height <= geometry.scaledHeight)
            }
        }
    }
}
