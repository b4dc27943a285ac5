import CVips
import Dispatch
import Foundation

/// Makes thumbnails with libvips, within `limits`: the original's bytes and header-declared
/// pixels are checked before any pixel is decoded, the pixels are then streamed top to bottom
/// (never the whole original in memory), at most `gate.slots` are made at once, and each is
/// stopped at its time budget.
public struct Thumbnailer: Sendable {
    /// What one thumbnail may cost.
    public var limits: ThumbnailLimits
    /// How many are made at once.
    public let gate: ThumbnailGate
    /// Where pipelines run: a private queue's threads (Dispatch's overcommitting pool). The
    /// global queue's threads, which an earlier version used, are on Linux the very threads
    /// Swift's cooperative pool runs on (one per core): two thumbnails of a slow image held
    /// every request of the host until they were done. The gate bounds how many run.
    private static let renderQueue = DispatchQueue(label: "thumbnails", attributes: .concurrent)

    /// What was made.
    public struct Made: Sendable, Equatable {
        /// The thumbnail's size.
        public var width: Int
        /// The thumbnail's size.
        public var height: Int
        /// Its format.
        public var format: ThumbnailSpec.Format
    }

    /// Creates a thumbnailer.
    public init(limits: ThumbnailLimits = ThumbnailLimits(), gate: ThumbnailGate = ThumbnailGate(slots: 2, maxWait: .seconds(2))) {
        self.limits = limits
        self.gate = gate
    }

    /// The loaders read (by libvips' class name, for a file source), with the format a
    /// thumbnail keeps when the URL names none. Anything else, SVG, PDF and the formats only
    /// ImageMagick reads included, is no image here. Not TIFF, which Qiniu read: libtiff copies
    /// every tag's value at open (a 4 MB file of 100 tags sharing one block took 1.2 GB before any
    /// limit applied) and decodes a tiled or planar file a whole tile row or plane at a time (a
    /// 65 KB file took 1.4 GB), none of which the header tells; LeanCloud's clients upload JPEG,
    /// PNG, GIF, WebP and HEIC.
    static let loaders: [String: ThumbnailSpec.Format] = [
        "VipsForeignLoadJpegSource": .jpg, "VipsForeignLoadPngSource": .png, "VipsForeignLoadWebpSource": .webp,
        "VipsForeignLoadNsgifSource": .gif, "VipsForeignLoadHeifSource": .jpg,
    ]

    /// Makes the thumbnail `spec` asks of the image file at `source`, written to `destination`,
    /// in one of `client`'s share of the slots (`ThumbnailGate`).
    public func make(from source: String, spec: ThumbnailSpec, to destination: String, for client: String) async throws(ThumbnailError)
        -> Made
    {
        let size = (try? FileManager.default.attributesOfItem(atPath: source)[.size] as? NSNumber)?.intValue ?? 0
        try limits.checkSource(size: size)
        guard await gate.enter(client: client) else {
            throw ThumbnailError(.busy, "Too many thumbnails are being made; try again shortly.")
        }
        defer { gate.leave(client: client) }
        let limits = self.limits
        // libvips blocks its thread for the whole pipeline: a thread of a private queue's,
        // never one of the cooperative pool the server's requests run on.
        let result: Result<Made, ThumbnailError> = await withCheckedContinuation { continuation in
            Self.renderQueue.async {
                let made = Result { () throws(ThumbnailError) in
                    try Self.render(source: source, spec: spec, destination: destination, limits: limits)
                }
                // The rows a thumbnail took go back to the system, not only to malloc's free
                // lists: a large one would otherwise stay in the process's size for good.
                Self.trimMalloc?(0)
                continuation.resume(returning: made)
            }
        }
        return try result.get()
    }

    /// glibc's `malloc_trim`, which the Glibc module doesn't declare.
    private static let trimMalloc: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// The whole libvips pipeline, on the calling thread.
    static func render(source path: String, spec: ThumbnailSpec, destination: String, limits: ThumbnailLimits) throws(ThumbnailError)
        -> Made
    {
        // The budget counts from before the open: time the loader's header work takes is spent.
        let killSwitch = VipsKillSwitch(budget: limits.timeBudget)
        guard Vips.started else { throw ThumbnailError(.storage, "libvips could not start: \(Vips.takeError())") }
        // Header work libvips can't stop (text chunks, chained TIFF pages) is refused from the
        // file's structure first: in a slot and off the server's threads, as it reads the file.
        try OriginalScan.check(path)
        guard let source = vips_source_new_from_file(path) else {
            throw ThumbnailError(.storage, "Could not open \(path): \(Vips.takeError())")
        }
        let loaderName = vips_foreign_find_load_source(source).map { String(cString: $0) }
        g_object_unref(source)
        guard let loaderName, let originalFormat = loaders[loaderName] else {
            _ = Vips.takeError()
            throw ThumbnailError(.notAnImage, "The file is not an image thumbnails are made of (JPEG, PNG, WebP, GIF, HEIF).")
        }
        // The header only: no pixel is decoded before the checks.
        var image = try open(path)
        defer { g_object_unref(image) }
        let sourceWidth = Int(vips_image_get_width(image))
        let sourceHeight = Int(vips_image_get_height(image))
        // GIF, WebP and HEIF decoders, and interlaced PNG or progressive JPEG, hold the whole
        // image while decoding (a 35-byte GIF claiming 12000×12000 took 600 MB), in one call the
        // time budget can't stop: those are held to what fits one buffer of `maxBufferedPixels`
        // and decodes in half the budget. The others stream a few rows at a time.
        let buffered = Self.buffersWholeImage(loaderName) || Self.isInterlaced(image)
        let pixelLimit = buffered ? min(limits.maxSourcePixels, limits.wholeDecodePixels) : limits.maxSourcePixels
        guard sourceWidth <= limits.maxSourceSide, sourceHeight <= limits.maxSourceSide,
            sourceWidth * sourceHeight <= pixelLimit
        else {
            throw ThumbnailError(
                .imageTooLarge,
                "The image is \(sourceWidth)×\(sourceHeight); thumbnails are made of images up to \(limits.maxSourceSide) pixels a side and \(pixelLimit) pixels (\(limits.wholeDecodePixels) for GIF, WebP, HEIF and interlaced images)."
            )
        }
        let geometry = ThumbnailGeometry(sourceWidth: sourceWidth, sourceHeight: sourceHeight, spec: spec)
        guard geometry.width <= limits.maxSide, geometry.height <= limits.maxSide,
            geometry.width * geometry.height <= limits.maxPixels
        else {
            throw ThumbnailError(
                .thumbnailTooLarge,
                "The thumbnail would be \(geometry.width)×\(geometry.height); thumbnails are up to \(limits.maxSide) pixels a side and \(limits.maxPixels) pixels."
            )
        }
        // WebP and GIF thumbnails are encoded whole, in one call: held as originals decoded whole are.
        let format = spec.format ?? originalFormat
        if format == .webp || format == .gif, geometry.width * geometry.height > limits.wholeEncodePixels {
            throw ThumbnailError(
                .thumbnailTooLarge,
                "The thumbnail would be \(geometry.width)×\(geometry.height); \(format.rawValue) thumbnails are up to \(limits.wholeEncodePixels) pixels."
            )
        }
        // Interlaced and progressive outputs are held whole by their encoders too.
        try limits.checkOutput(width: geometry.width, height: geometry.height, format: format, interlace: spec.interlace)
        // A JPEG decodes at 1/2, 1/4 or 1/8 of its size for a fraction of the work, a WebP at any
        // scale into a buffer of the scaled size; a factor of two is left for the resize so its
        // quality is the same.
        if loaderName == "VipsForeignLoadJpegSource" {
            let shrink = [8, 4, 2].first {
                sourceWidth / $0 >= 2 * geometry.scaledWidth && sourceHeight / $0 >= 2 * geometry.scaledHeight
            }
            if let shrink {
                let shrunk = try open(path, shrink: shrink)
                g_object_unref(image)
                image = shrunk
            }
        } else if loaderName == "VipsForeignLoadWebpSource" {
            let scale = max(Double(2 * geometry.scaledWidth) / Double(sourceWidth), Double(2 * geometry.scaledHeight) / Double(sourceHeight))
            if scale < 1 {
                let scaled = try open(path, scale: scale)
                g_object_unref(image)
                image = scaled
            }
        }
        // What the pipeline will hold, from the (shrunk on load) original's header.
        let loadedWidth = Int(vips_image_get_width(image))
        let bytesPerBand = Int(vips_format_sizeof(vips_image_get_format(image)))
        let cost = ThumbnailCost(
            width: loadedWidth, bands: Int(vips_image_get_bands(image)), bytesPerBand: bytesPerBand,
            floating: vips_image_hasalpha(image) != 0 || bytesPerBand > 1 || fh_vips_is_cmyk(image) != 0,
            scaledWidth: geometry.scaledWidth)
        guard cost.bytes <= limits.maxWorkingBytes else {
            throw ThumbnailError(
                .imageTooLarge,
                "The image is \(sourceWidth)×\(sourceHeight) of \(vips_image_get_bands(image)) bands of \(bytesPerBand * 8) bits; this thumbnail of it would take about \(cost.bytes / 1_048_576) MB of memory, and thumbnails take up to \(limits.maxWorkingBytes / 1_048_576) MB."
            )
        }
        killSwitch.watch(image)
        defer { killSwitch.finish() }
        do {
            try save(image, geometry: geometry, format: format, spec: spec, to: destination)
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            // libvips' error text is process-wide (another request's file paths and keys may be
            // in it): it is cleared, never answered.
            _ = Vips.takeError()
            if killSwitch.fired {
                throw ThumbnailError(.timedOut, "Making the thumbnail took longer than \(limits.timeBudget).")
            }
            throw ThumbnailError(.notAnImage, "The image could not be decoded.")
        }
        return Made(width: geometry.width, height: geometry.height, format: format)
    }

    /// Whether the loader decodes a whole image (or frame) into memory at once.
    static func buffersWholeImage(_ loaderName: String) -> Bool {
        ["VipsForeignLoadNsgifSource", "VipsForeignLoadWebpSource", "VipsForeignLoadHeifSource"].contains(loaderName)
    }

    /// Whether the header says the image is interlaced (Adam7 PNG, progressive JPEG), which
    /// libvips decodes whole before the first row is out.
    static func isInterlaced(_ image: UnsafeMutablePointer<VipsImage>) -> Bool {
        guard vips_image_get_typeof(image, "interlaced") != 0 else { return false }
        var value: Int32 = 0
        return vips_image_get_int(image, "interlaced", &value) == 0 && value != 0
    }

    /// The original, opened for one sequential read (`shrink` for JPEG's shrink-on-load, `scale`
    /// for WebP's).
    private static func open(_ path: String, shrink: Int = 1, scale: Double? = nil) throws(ThumbnailError)
        -> UnsafeMutablePointer<VipsImage>
    {
        guard let source = vips_source_new_from_file(path) else {
            throw ThumbnailError(.storage, "Could not open \(path): \(Vips.takeError())")
        }
        defer { g_object_unref(source) }
        guard let image = scale.map({ fh_vips_open_scaled(source, $0) }) ?? fh_vips_open(source, Int32(shrink)) else {
            _ = Vips.takeError()
            throw ThumbnailError(.notAnImage, "The image's header could not be read.")
        }
        return image
    }

    /// Scales, cuts and writes; any libvips failure is thrown as a bare `VipsFailure`.
    private static func save(
        _ image: UnsafeMutablePointer<VipsImage>, geometry: ThumbnailGeometry, format: ThumbnailSpec.Format, spec: ThumbnailSpec,
        to destination: String
    ) throws(VipsFailure) {
        var held: [UnsafeMutablePointer<VipsImage>] = []
        defer { held.forEach { g_object_unref($0) } }
        func step(_ operation: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32) throws(VipsFailure)
            -> UnsafeMutablePointer<VipsImage>
        {
            var out: UnsafeMutablePointer<VipsImage>?
            guard operation(&out) == 0, let out else { throw VipsFailure() }
            held.append(out)
            return out
        }
        var current = image
        // Averaged down by whole factors first, so the resize's buffers are rows a few times the
        // thumbnail's width, not the original's (`ThumbnailCost`).
        let across = ThumbnailCost.preShrink(Int(vips_image_get_width(image)), to: geometry.scaledWidth)
        let down = ThumbnailCost.preShrink(Int(vips_image_get_height(image)), to: geometry.scaledHeight)
        if across > 1 || down > 1 {
            current = try step { fh_vips_preshrink(current, $0, Int32(across), Int32(down)) }
        }
        current = try step { fh_vips_resize(current, $0, Int32(geometry.scaledWidth), Int32(geometry.scaledHeight)) }
        if geometry.crops {
            let left = (geometry.scaledWidth - geometry.width) / 2
            let top = (geometry.scaledHeight - geometry.height) / 2
            current = try step { fh_vips_crop(current, $0, Int32(left), Int32(top), Int32(geometry.width), Int32(geometry.height)) }
        }
        if format == .jpg, vips_image_hasalpha(current) != 0 {
            current = try step { fh_vips_flatten_white(current, $0) }
        }
        let interlace: Int32 = spec.interlace ? 1 : 0
        let quality = Int32(spec.quality)
        let result: Int32 =
            switch format {
            case .jpg: fh_vips_save_jpeg(current, destination, quality, interlace)
            case .png: fh_vips_save_png(current, destination, interlace)
            case .webp: fh_vips_save_webp(current, destination, quality)
            case .gif: fh_vips_save_gif(current, destination)
            }
        guard result == 0 else { throw VipsFailure() }
    }
}

/// A libvips call failed; its text is in libvips' error buffer.
struct VipsFailure: Error {}
