import Foundation

/// The one byte range a `Range: bytes=...` header asks of a file.
struct ByteRange: Equatable, Sendable {
    /// The first byte.
    let start: Int
    /// The last byte, included.
    let end: Int

    /// How many bytes.
    var count: Int { end - start + 1 }

    /// What a `Range` header means for a file of `size` bytes.
    enum Request: Equatable {
        /// The whole file: no header, one this server doesn't take (several ranges, other units),
        /// or one it may ignore.
        case whole
        /// One range.
        case range(ByteRange)
        /// A range that starts past the end: 416.
        case unsatisfiable
    }

    /// Reads `bytes=a-b`, `bytes=a-` and `bytes=-n` (the last n bytes).
    static func parse(_ header: String?, size: Int) -> Request {
        guard let header, header.hasPrefix("bytes=") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        // Several ranges would need a multipart answer; the whole file is a valid answer too.
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            guard let suffix = Int(last), suffix > 0 else { return suffixOfNothing(last, size: size) }
            guard size > 0 else { return .unsatisfiable }
            return .range(ByteRange(start: max(0, size - suffix), end: size - 1))
        }
        guard let start = Int(first), start >= 0 else { return .whole }
        guard start < size else { return .unsatisfiable }
        if last.isEmpty { return .range(ByteRange(start: start, end: size - 1)) }
        guard let end = Int(last), end >= start else { return .whole }
        return .range(ByteRange(start: start, end: min(end, size - 1)))
    }

    /// `bytes=-0` asks for nothing (416); anything unreadable is ignored.
    private static func suffixOfNothing(_ last: Substring, size: Int) -> Request {
        Int(last) == 0 ? .unsatisfiable : .whole
    }
}
