import CVips
import Foundation

/// Reads the structure an original's loader walks before its first pixel, headers only, and
/// refuses the originals whose header work alone would cost more than a thumbnail may: libvips
/// can't stop a loader's open (the time budget's kill switch acts on pixels), and what the open
/// allocates is outside the pixel bounds.
///
/// - PNG: libpng inflates every `zTXt`, compressed `iTXt` and `iCCP` chunk (up to 8 MB each) and
///   libvips keeps the text as the image's metadata, copied several times over: 820 KB of
///   `zTXt` took 1.2 GB and 9 s, four chunks of 8 MB 200 MB. The chunk list is walked (lengths
///   and types) and ancillary chunks are bounded by count and by bytes as stored; the compressed
///   ones are inflated here, counted and dropped, and bounded by what they inflate to.
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
    /// The most compressed ancillary chunks (`zTXt`, `iTXt`, `iCCP`). Real images carry an ICC
    /// profile and a few raw profiles (EXIF, XMP, IPTC) at most.
    static let maxPNGCompressedChunks = 8
    /// The most bytes the compressed ancillary chunks may inflate to, all together: an ICC
    /// profile is a few KB to 1 MB, EXIF and XMP less.
    static let maxPNGInflatedBytes = 2 * 1024 * 1024
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
        var inflated = 0
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
                if ["zTXt", "iTXt", "iCCP"].contains(type), let data = reader.bytes(at: offset + 8, count: length) {
                    inflated += inflatedSize(type: type, data, limit: maxPNGInflatedBytes - inflated)
                    guard inflated <= maxPNGInflatedBytes else {
                        throw refusal("The PNG's metadata inflates to more than \(maxPNGInflatedBytes) bytes")
                    }
                }
            }
            // Length, type, data, CRC.
            offset += 12 + length
        }
    }

    /// What a compressed chunk's text or profile inflates to (past `limit`, a count over it): its
    /// zlib stream follows a keyword and its NUL, then (`iTXt`) a compression flag, or the
    /// method byte, and (`iTXt`) a language tag and a translated keyword, each NUL-ended.
    private static func inflatedSize(type: String, _ data: [UInt8], limit: Int) -> Int {
        guard let keywordEnd = data.firstIndex(of: 0) else { return 0 }
        var start = keywordEnd + 2
        if type == "iTXt" {
            // An uncompressed iTXt is counted as stored (in the bytes bound already).
            guard keywordEnd + 1 < data.count, data[keywordEnd + 1] != 0,
                let language = data[min(data.count, keywordEnd + 3)...].firstIndex(of: 0),
                let translated = data[(language + 1)...].firstIndex(of: 0)
            else { return 0 }
            start = translated + 1
        }
        guard start < data.count else { return 0 }
        let size = data[start...].withUnsafeBytes { fh_inflated_size($0.baseAddress, $0.count, Int64(limit)) }
        // A corrupt stream: libpng drops the chunk with a warning.
        return size < 0 ? 0 : Int(size)
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
