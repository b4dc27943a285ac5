/// The size of a thumbnail, from the original's and the spec's, as Qiniu's imageView2 documents
/// its modes. Scaling keeps the aspect ratio and never enlarges (a thumbnail is never larger
/// than the original on any side); a parameter left out is "no limit" where w and h are upper
/// bounds, and "the other one's value" where they are lower bounds.
///
/// - 0: the long edge at most w, the short edge at most h.
/// - 1: the width at least w and the height at least h, then the middle w×h cut out.
/// - 2: the width at most w, the height at most h.
/// - 3: the width at least w, the height at least h.
/// - 4: the long edge at least w, the short edge at least h.
/// - 5: as 4, then the middle cut out (w along the long edge, h along the short one).
///
/// `imageView` (version 1) has modes 1 and 2 only, taken as imageView2's.
public struct ThumbnailGeometry: Sendable, Equatable {
    /// The size the whole original is scaled to.
    public var scaledWidth: Int
    /// The size the whole original is scaled to.
    public var scaledHeight: Int
    /// The size of the answer: the scaled size, or the middle part cut out of it.
    public var width: Int
    /// The size of the answer.
    public var height: Int

    /// The geometry of `spec` on an original of `sourceWidth`×`sourceHeight`.
    public init(sourceWidth: Int, sourceHeight: Int, spec: ThumbnailSpec) {
        let sourceW = Double(sourceWidth)
        let sourceH = Double(sourceHeight)
        let long = max(sourceW, sourceH)
        let short = min(sourceW, sourceH)
        let w = spec.width.map(Double.init)
        let h = spec.height.map(Double.init)
        // Upper bounds: a missing one is no bound. Lower bounds: a missing one is the other's.
        let anyW = w ?? .infinity
        let anyH = h ?? .infinity
        let lowerW = w ?? h ?? 0
        let lowerH = h ?? w ?? 0
        let scale: Double
        switch spec.mode {
        case 0: scale = min(anyW / long, anyH / short)
        case 1, 3: scale = max(lowerW / sourceW, lowerH / sourceH)
        case 4, 5: scale = max(lowerW / long, lowerH / short)
        default: scale = min(anyW / sourceW, anyH / sourceH)
        }
        let factor = min(1, scale)
        scaledWidth = Self.side(sourceW * factor, upTo: sourceWidth)
        scaledHeight = Self.side(sourceH * factor, upTo: sourceHeight)
        width = scaledWidth
        height = scaledHeight
        switch spec.mode {
        case 1 where w != nil || h != nil:
            width = min(scaledWidth, Int(lowerW))
            height = min(scaledHeight, Int(lowerH))
        case 5 where w != nil || h != nil:
            let cutLong = Int(lowerW)
            let cutShort = Int(lowerH)
            let landscape = sourceWidth >= sourceHeight
            width = min(scaledWidth, landscape ? cutLong : cutShort)
            height = min(scaledHeight, landscape ? cutShort : cutLong)
        default:
            break
        }
    }

    /// A scaled side: rounded, at least one pixel, never past the original's.
    private static func side(_ value: Double, upTo original: Int) -> Int {
        max(1, min(original, Int(value.rounded())))
    }

    /// Whether the answer is a cut of the scaled image.
    public var crops: Bool { width != scaledWidth || height != scaledHeight }
}
