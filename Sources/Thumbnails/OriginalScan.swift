import Foundation

/// Reads the structure an original's loader walks before its first pixel, headers only, and
/// refuses the originals whose header work alone would cost more than a thumbnail may: libvips
/// can't stop a loader's open (the time budget's kill switch acts on pixels), and what the open
/// allocates is outside the pixel bounds.
///
/// - PNG: libpng inflates every `zTXt`, compressed `iTXt` and `iCCP` chunk (up to 8 MB each) and
///   libvips keeps the text as the image's metadata; 820 KB of `zTXt` took 1.2 GB and 9 s. The
///   chunk list is walked (lengths and types, never the data) and ancillary chunks are bounded
///   by count, by bytes, and the compressed ones by a small count.
/// - TIFF: libvips counts the pages by reading every directory at open; 174 000 chained ones
///   took 15 s. The directory chain is followed (offsets only) up to `maxTIFFPages`.
///
/// Other formats have nothing of the kind to bound here: JPEG's and WebP's metadata is stored
/// raw (bounded by the file's size), GIF's frames are read lazily, HEIF's boxes by libheif's
/// own limits.
enum OriginalScan {
    /// The most ancillary chunks (text, profiles, anything lower-case) a PNG may carry.
    static let maxPNGAncillaryChunks = 64
    /// The most bytes of ancillary chunks a PNG may carry, as stored.
    static let maxPNGAncillaryBytes = 1024 * 1024
    /// The most compressed ancillary chunks (`zTXt`, `iTXt`, `iCCP`): each may inflate to 8 MB
    /// (libpng's cap), so 4 bound a PNG's metadata to 32 MB. Real images carry an ICC profile
    /// and a few raw profiles (EXIF, XMP, IPTC) at most.
    static let maxPNGCompressedChunks = 4
    /// The most pages (directories) of a TIFF.
    static let maxTIFFPages = 64

    /// Throws `.imageTooLarge` when the original at `path` is past a bound; nothing for the
    /// formats not scanned, and for files too short to say (the loader refuses those).
    static func check(_ path: String) throws(ThumbnailError) {
        guard let reader = FileWindow(path: path) else { return }
        defer { reader.close() }
        guard let magic = reader.bytes(at: 0, count: 8) else { return }
        if magic == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] {
            try checkPNG(reader)
        } else if magic.starts(with: [0x49, 0x49]) || magic.starts(with: [0x4D, 0x4D]) {
            try checkTIFF(reader, littleEndian: magic[0] == 0x49)
        }
    }

    private static func checkPNG(_ reader: FileWindow) throws(ThumbnailError) {
        var offset = 8
        var ancillary = 0
        var ancillaryBytes = 0
        var compressed = 0
        while let header = reader.bytes(at: offset, count: 8) {
            let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            let type = String(decoding: header[4..<8], as: UTF8.self)
            if type == "IEND" { break }
            // An ancillary chunk's type starts with a lower-case letter (bit 5 of its first byte).
            if header[4] & 0x20 != 0 {
                ancillary += 1
                ancillaryBytes += length
                if ["zTXt", "iTXt", "iCCP"].contains(type) { compressed += 1 }
                guard ancillary <= maxPNGAncillaryChunks else {
                    throw refusal("The PNG carries more than \(maxPNGAncillaryChunks) metadata chunks")
                }
                guard compressed <= maxPNGCompressedChunks else {
                    throw refusal("The PNG carries more than \(maxPNGCompressedChunks) compressed text or profile chunks")
                }
                guard ancillaryBytes <= maxPNGAncillaryBytes else {
                    throw refusal("The PNG carries more than \(maxPNGAncillaryBytes) bytes of metadata")
                }
            }
            // Length, type, data, CRC.
            offset += 12 + length
        }
    }

    private static func checkTIFF(_ reader: FileWindow, littleEndian: Bool) throws(ThumbnailError) {
        func number(at offset: Int, _ count: Int) -> Int? {
            guard let bytes = reader.bytes(at: offset, count: count) else { return nil }
            let ordered = littleEndian ? bytes.reversed() : bytes
            return ordered.reduce(0) { $0 << 8 | Int($1) }
        }
        // 42: classic TIFF (4-byte offsets, 12-byte entries); 43: BigTIFF (8 and 20).
        guard let version = number(at: 2, 2), version == 42 || version == 43 else { return }
        let big = version == 43
        let offsetSize = big ? 8 : 4
        let countSize = big ? 8 : 2
        let entrySize = big ? 20 : 12
        guard var directory = number(at: big ? 8 : 4, offsetSize) else { return }
        var pages = 0
        var seen: Set<Int> = []
        // A zero offset ends the chain; one already seen is a loop (libtiff stops there).
        while directory != 0, seen.insert(directory).inserted {
            pages += 1
            guard pages <= maxTIFFPages else {
                throw refusal("The TIFF has more than \(maxTIFFPages) pages")
            }
            guard let entries = number(at: directory, countSize), entries >= 0, entries < 1 << 20,
                let next = number(at: directory + countSize + entries * entrySize, offsetSize)
            else { return }
            directory = next
        }
    }

    private static func refusal(_ what: String) -> ThumbnailError {
        ThumbnailError(.imageTooLarge, "\(what); thumbnails are not made of it.")
    }
}

/// Reads small pieces of a file through a 64 KB window, so walking a chunk list of tiny chunks
/// is not a read call each.
private final class FileWindow {
    private let handle: FileHandle
    private var start = 0
    private var window: [UInt8] = []

    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        self.handle = handle
    }

    /// `count` bytes at `offset`; nil past the end of the file.
    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        guard offset >= 0, count >= 0 else { return nil }
        if offset < start || offset + count > start + window.count {
            guard (try? handle.seek(toOffset: UInt64(offset))) != nil,
                let data = try? handle.read(upToCount: max(count, 64 * 1024))
            else { return nil }
            start = offset
            window = Array(data)
        }
        guard offset + count <= start + window.count else { return nil }
        return Array(window[(offset - start)..<(offset - start + count)])
    }

    func close() { try? handle.close() }
}
