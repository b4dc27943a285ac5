/// The members of a tar archive, read front to back from a byte stream (ustar, GNU long names
/// and pax headers): `nextEntry()` moves to the next regular file, whose bytes are then read
/// through the archive itself. Nothing is extracted to disk.
public final class TarArchive: ByteSource {
    /// A regular file in the archive.
    public struct Entry: Sendable {
        /// Its path inside the archive.
        public var path: String
        /// Its size in bytes.
        public var size: Int
    }

    private let source: any ByteSource
    private var buffer: ArraySlice<UInt8> = []
    /// Bytes of the current entry not read yet, and the padding after them.
    private var remaining = 0
    private var padding = 0

    /// Reads the archive `source` yields.
    public init(_ source: any ByteSource) {
        self.source = source
    }

    /// Skips what is left of the current entry and returns the next regular file, or nil at the
    /// end of the archive.
    public func nextEntry() throws -> Entry? {
        try skip(remaining + padding)
        remaining = 0
        padding = 0
        var longName: String?
        while true {
            guard let header = try take(512) else { return nil }
            if header.allSatisfy({ $0 == 0 }) {
                // The end: read the rest (zero padding), so a compressed stream under the archive
                // reaches its own end and checks its length and checksum: a truncated archive is
                // an error, not a quiet success.
                while try source.read() != nil {}
                buffer = []
                return nil
            }
            guard let size = Self.octal(header[124..<136]) else {
                throw DataAPIError(.importFailure, "The tar archive is damaged (a header with no size).")
            }
            let type = header[156]
            let padded = (size + 511) / 512 * 512
            switch type {
            case UInt8(ascii: "L"):  // GNU: the next entry's long name
                guard let body = try take(padded) else { throw Self.truncated }
                longName = Self.text(body.prefix(size))
            case UInt8(ascii: "x"):  // pax: attributes of the next entry (path=...)
                guard let body = try take(padded) else { throw Self.truncated }
                if let path = Self.paxPath(body.prefix(size)) { longName = path }
            case UInt8(ascii: "0"), 0:
                var path = Self.text(header[0..<100])
                let prefix = Self.text(header[345..<500])
                if !prefix.isEmpty, header[257..<262].elementsEqual("ustar".utf8) { path = prefix + "/" + path }
                remaining = size
                padding = padded - size
                return Entry(path: longName ?? path, size: size)
            default:  // directories, links, global pax headers: skipped
                try skip(padded)
                longName = nil
            }
        }
    }

    /// The current entry's next bytes, or nil at its end.
    public func read() throws -> ArraySlice<UInt8>? {
        guard remaining > 0 else { return nil }
        if buffer.isEmpty {
            guard let next = try source.read() else { throw Self.truncated }
            buffer = next
        }
        let count = min(remaining, buffer.count)
        let chunk = buffer.prefix(count)
        buffer = buffer.dropFirst(count)
        remaining -= count
        return chunk
    }

    private static let truncated = DataAPIError(.importFailure, "The tar archive ends early: it is truncated.")

    /// Exactly `count` bytes, or nil when the stream ends before the first of them.
    private func take(_ count: Int) throws -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            if buffer.isEmpty {
                guard let next = try source.read() else {
                    if out.isEmpty { return nil }
                    throw Self.truncated
                }
                buffer = next
            }
            let n = min(count - out.count, buffer.count)
            out += buffer.prefix(n)
            buffer = buffer.dropFirst(n)
        }
        return out
    }

    private func skip(_ count: Int) throws {
        var left = count
        while left > 0 {
            if buffer.isEmpty {
                guard let next = try source.read() else { throw Self.truncated }
                buffer = next
            }
            let n = min(left, buffer.count)
            buffer = buffer.dropFirst(n)
            left -= n
        }
    }

    /// A NUL-terminated field as text.
    private static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// An octal number field (or GNU's base-256 form for sizes of 8 GiB and more).
    private static func octal(_ bytes: ArraySlice<UInt8>) -> Int? {
        if let first = bytes.first, first & 0x80 != 0 {
            return bytes.dropFirst().reduce(Int(first & 0x7F)) { $0 << 8 | Int($1) }
        }
        let digits = text(bytes).trimmingSpaces
        return digits.isEmpty ? 0 : Int(digits, radix: 8)
    }

    /// The `path` record of a pax header body (`<length> path=<value>\n` records).
    private static func paxPath(_ body: some Collection<UInt8>) -> String? {
        for record in String(decoding: body, as: UTF8.self).split(separator: "\n") {
            guard let space = record.firstIndex(of: " ") else { continue }
            let pair = record[record.index(after: space)...]
            if pair.hasPrefix("path=") { return String(pair.dropFirst(5)) }
        }
        return nil
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(self.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
