import Foundation

/// Originals made to cost a thumbnailer more than their size says, for the attack tests: a PNG
/// whose text chunks inflate to far more than the file, and a TIFF of many chained pages.
package enum HostileImages {
    /// A 16×16 RGB PNG carrying `chunks` compressed chunks of `type` (`zTXt`, `iTXt` or `iCCP`)
    /// placed before its pixels, each of which inflates to `inflatedBytes` letters (a few KB each
    /// in the file; text of zero bytes would read as empty strings).
    package static func pngWithTextBomb(chunks: Int, inflatedBytes: Int, type: String = "zTXt") -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += ImageFixture.chunk("IHDR", ImageFixture.bigEndian(16) + ImageFixture.bigEndian(16) + [8, 2, 0, 0, 0])
        let text = zlibRun(of: 0x41, inflatedBytes)
        for index in 0..<chunks {
            // The keyword (or profile name) and its NUL; for iTXt the compressed flag; the method
            // (0, deflate); for iTXt an empty language tag and translated keyword; the stream.
            let prefix: [UInt8] = type == "iTXt" ? [0, 1, 0, 0, 0] : [0, 0]
            bytes += ImageFixture.chunk(type, Array("note\(index)".utf8) + prefix + text)
        }
        // 16 rows of a filter byte and 48 zero bytes.
        bytes += ImageFixture.chunk("IDAT", zlibRun(of: 0, 16 * 49))
        bytes += ImageFixture.chunk("IEND", [])
        return bytes
    }

    /// A PNG of `count` ancillary chunks (`tEXt`) of `size` bytes each, before its pixels.
    package static func pngWithTextChunks(count: Int, size: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += ImageFixture.chunk("IHDR", ImageFixture.bigEndian(16) + ImageFixture.bigEndian(16) + [8, 2, 0, 0, 0])
        for index in 0..<count {
            let keyword = Array("note\(index)".utf8)
            bytes += ImageFixture.chunk("tEXt", keyword + [0] + [UInt8](repeating: 0x41, count: max(0, size - keyword.count - 1)))
        }
        bytes += ImageFixture.chunk("IDAT", zlibRun(of: 0, 16 * 49))
        bytes += ImageFixture.chunk("IEND", [])
        return bytes
    }

    /// A 16×16 RGB PNG whose pixels are split into `count` data chunks, all but the last empty
    /// (12 bytes each: a chunk list as long as the file allows).
    package static func pngOfManyChunks(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += ImageFixture.chunk("IHDR", ImageFixture.bigEndian(16) + ImageFixture.bigEndian(16) + [8, 2, 0, 0, 0])
        let empty = ImageFixture.chunk("IDAT", [])
        bytes.reserveCapacity(bytes.count + count * empty.count + 100)
        for _ in 1..<max(1, count) { bytes += empty }
        bytes += ImageFixture.chunk("IDAT", zlibRun(of: 0, 16 * 49))
        bytes += ImageFixture.chunk("IEND", [])
        return bytes
    }

    /// A little-endian TIFF of `pages` 1×1 grey pages, each directory pointing at the next (a
    /// loader walks all of them to count the pages before the first pixel).
    package static func tiffWithPages(_ pages: Int) -> [UInt8] {
        func short(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func long(_ value: Int) -> [UInt8] { short(value & 0xFFFF) + short(value >> 16 & 0xFFFF) }
        // The header, then the one pixel every page shares (at offset 8), then the directories.
        var bytes: [UInt8] = [0x49, 0x49, 42, 0] + long(16) + [0x80, 0, 0, 0, 0, 0, 0, 0]
        let directorySize = 2 + 9 * 12 + 4
        for page in 0..<pages {
            // tag, type (3 SHORT, 4 LONG), count 1, value
            let entries: [(tag: Int, type: Int, value: Int)] = [
                (256, 4, 1), (257, 4, 1), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 8), (277, 3, 1), (278, 4, 1), (279, 4, 1),
            ]
            bytes += short(entries.count)
            for entry in entries {
                bytes += short(entry.tag) + short(entry.type) + long(1)
                bytes += entry.type == 3 ? short(entry.value) + short(0) : long(entry.value)
            }
            bytes += long(page + 1 < pages ? 16 + (page + 1) * directorySize : 0)
        }
        return bytes
    }

    /// A zlib stream of `count` bytes of `byte`, deflated with the fixed Huffman codes: one
    /// literal, then back-references of 258 bytes at distance 1 (about 1 000 to 1).
    package static func zlibRun(of byte: UInt8, _ count: Int) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var buffer: UInt32 = 0
        var held = 0
        // Deflate packs bits from the least significant, Huffman codes from their first bit.
        func put(_ value: UInt32, _ bits: Int) {
            buffer |= value << UInt32(held)
            held += bits
            while held >= 8 {
                out.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                held -= 8
            }
        }
        func code(_ value: UInt32, _ bits: Int) {
            var reversed: UInt32 = 0
            for bit in 0..<bits where value & (1 << UInt32(bit)) != 0 { reversed |= 1 << UInt32(bits - 1 - bit) }
            put(reversed, bits)
        }
        put(1, 1)  // the last block
        put(1, 2)  // of fixed codes
        var left = count
        // Literals 0 to 143 are the 8-bit codes from 0x30.
        let literal = 0x30 + UInt32(byte)
        if left > 0 {
            code(literal, 8)
            left -= 1
        }
        while left >= 258 {
            code(0xC5, 8)  // length 258 (code 285)
            code(0, 5)  // distance 1
            left -= 258
        }
        for _ in 0..<left { code(literal, 8) }
        code(0, 7)  // end of block
        if held > 0 { out.append(UInt8(buffer & 0xFF)) }
        // Adler-32: a is 1 plus the bytes, b the sum of a after each byte.
        let modulus = 65521
        let a = (1 + Int(byte) * count) % modulus
        let b = (count + Int(byte) * (count * (count + 1) / 2 % modulus)) % modulus
        return out + ImageFixture.bigEndian(UInt32(b << 16 | a))
    }
}
