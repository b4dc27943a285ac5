/// A thumbnail asked for in a file URL's query, Qiniu's way (LeanCloud's China files were on
/// Qiniu; its SDKs build these URLs): `imageView2/<mode>/w/<w>/h/<h>/q/<q>/format/<f>/interlace/<0|1>/ignore-error/<0|1>`,
/// or the older `imageView/<1|2>/...` the JavaScript and Objective-C SDKs' `thumbnailURL` and
/// `getThumbnail` use. Every parameter but the mode is optional.
public struct ThumbnailSpec: Sendable, Hashable {
    /// The output formats.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        case jpg, png, webp, gif

        /// The answer's `Content-Type`.
        public var mimeType: String {
            switch self {
            case .jpg: "image/jpeg"
            case .png: "image/png"
            case .webp: "image/webp"
            case .gif: "image/gif"
            }
        }
    }

    /// 1 for `imageView`, 2 for `imageView2`.
    public var version: Int
    /// The mode, 0 to 5 (`ThumbnailGeometry` says what each does).
    public var mode: Int
    /// The `w` parameter, when given.
    public var width: Int?
    /// The `h` parameter, when given.
    public var height: Int?
    /// The quality for JPEG and WebP, 1 to 100 (Qiniu's default: 85 for `imageView`, 75 for `imageView2`).
    public var quality: Int
    /// The output format; nil keeps the original's (JPEG for originals no browser shows, TIFF and HEIF).
    public var format: Format?
    /// Progressive JPEG, interlaced PNG.
    public var interlace: Bool
    /// `ignore-error/1`: when no thumbnail can be made, the original is answered instead.
    public var ignoresErrors: Bool

    /// Creates a spec.
    public init(
        version: Int = 2, mode: Int, width: Int? = nil, height: Int? = nil, quality: Int? = nil, format: Format? = nil,
        interlace: Bool = false, ignoresErrors: Bool = false
    ) {
        self.version = version
        self.mode = mode
        self.width = width
        self.height = height
        self.quality = quality ?? (version == 1 ? 85 : 75)
        self.format = format
        self.interlace = interlace
        self.ignoresErrors = ignoresErrors
    }

    /// The longest command read; past it the request is refused (a real one is under 80).
    public static let maxLength = 256
    /// The largest `w` or `h` (Qiniu's largest thumbnail side).
    public static let maxSide = 9999

    /// The spec a URL's query asks for; nil when the query is no `imageView` command (the file
    /// itself is answered then, as Qiniu answers a query it doesn't know).
    ///
    /// Only the query's part before any `&` is read: Qiniu lets other parameters follow.
    public static func parse(query: String) throws(ThumbnailError) -> ThumbnailSpec? {
        let command = query.prefix { $0 != "&" }
        let version: Int
        if command.hasPrefix("imageView2/") {
            version = 2
        } else if command.hasPrefix("imageView/") {
            version = 1
        } else {
            return nil
        }
        guard command.utf8.count <= maxLength else {
            throw ThumbnailError(.badParameters, "The imageView command is longer than \(maxLength) characters.")
        }
        var parts = command.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        // One trailing slash is tolerated (URLs built by concatenation end with one).
        if parts.last == "" { parts = parts.dropLast() }
        guard let modeText = parts.first, let mode = number(modeText) else {
            throw ThumbnailError(.badParameters, "imageView needs a mode: imageView\(version == 2 ? "2" : "")/<mode>/....")
        }
        let modes = version == 2 ? 0...5 : 1...2
        guard modes.contains(mode) else {
            throw ThumbnailError(
                .badParameters, "imageView\(version == 2 ? "2" : "") takes modes \(modes.lowerBound) to \(modes.upperBound), not \(mode).")
        }
        var spec = ThumbnailSpec(version: version, mode: mode)
        var seen: Set<Substring> = []
        var rest = parts.dropFirst()
        while let name = rest.first {
            rest = rest.dropFirst()
            guard let value = rest.first else {
                throw ThumbnailError(.badParameters, "imageView's \(display(name)) has no value.")
            }
            rest = rest.dropFirst()
            guard seen.insert(name).inserted else {
                throw ThumbnailError(.badParameters, "imageView's \(display(name)) is given twice.")
            }
            try spec.set(name, to: value)
        }
        return spec
    }

    private mutating func set(_ name: Substring, to value: Substring) throws(ThumbnailError) {
        switch name {
        case "w": width = try Self.integer(value, name: "w", in: 1...Self.maxSide)
        case "h": height = try Self.integer(value, name: "h", in: 1...Self.maxSide)
        case "q": quality = try Self.integer(value, name: "q", in: 1...100)
        case "interlace": interlace = try Self.integer(value, name: "interlace", in: 0...1) == 1
        case "ignore-error": ignoresErrors = try Self.integer(value, name: "ignore-error", in: 0...1) == 1
        case "format":
            // `jpeg` is how some clients spell it.
            let lowered = value.lowercased()
            guard let format = Format(rawValue: lowered == "jpeg" ? "jpg" : lowered) else {
                throw ThumbnailError(
                    .badParameters, "imageView's format must be jpg, png, webp or gif, not '\(Self.display(value))'.")
            }
            self.format = format
        default:
            throw ThumbnailError(
                .badParameters,
                "imageView takes w, h, q, format, interlace and ignore-error, not '\(Self.display(name))'.")
        }
    }

    private static func integer(_ text: Substring, name: String, in range: ClosedRange<Int>) throws(ThumbnailError) -> Int {
        guard let value = number(text), range.contains(value) else {
            throw ThumbnailError(
                .badParameters,
                "imageView's \(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(display(text))'.")
        }
        return value
    }

    /// A number of at most 6 ASCII digits (no sign, no spaces, nothing Int's parser would forgive).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 6, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    /// Client text quoted back in a message: printable ASCII only, at most 40 characters.
    private static func display(_ text: Substring) -> String {
        String(String(text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" }).prefix(40))
    }

    /// One text per distinct thumbnail: every parameter resolved to its value (defaults
    /// included), in one order. The cache's and the `ETag`'s key; `ignore-error` is left out,
    /// it changes no thumbnail.
    public var normalized: String {
        var text = "imageView\(version)/\(mode)"
        if let width { text += "/w/\(width)" }
        if let height { text += "/h/\(height)" }
        text += "/q/\(quality)/format/\(format?.rawValue ?? "original")/interlace/\(interlace ? 1 : 0)"
        return text
    }
}
