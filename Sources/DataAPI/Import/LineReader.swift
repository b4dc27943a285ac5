/// The lines of a byte stream, with their numbers: `\n` or `\r\n` ends a line, a UTF-8 byte
/// order mark before the first is dropped, and the last line needs no newline.
public final class LineReader {
    private let source: any ByteSource
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    /// The number of the line `next()` returned last (from 1).
    public private(set) var lineNumber = 0
    /// The longest line accepted; a longer one is an error (an export's objects are at most
    /// 16 MB).
    public static let maxLineLength = 64 << 20

    /// Reads the lines of `source`.
    public init(_ source: any ByteSource) {
        self.source = source
    }

    /// The next line without its end, or nil after the last.
    public func next() throws -> ArraySlice<UInt8>? {
        var searchFrom = start
        while true {
            if let newline = buffer[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
                var end = newline
                if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                let line = buffer[start..<end]
                start = newline + 1
                return deliver(line)
            }
            if ended {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                return deliver(line)
            }
            // Keep the unfinished line, then read more behind it.
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            searchFrom = buffer.count
            guard buffer.count <= Self.maxLineLength else {
                throw DataAPIError(.importFailure, "Line \(lineNumber + 1) is longer than \(Self.maxLineLength >> 20) MB.")
            }
            if let chunk = try source.read() { buffer += chunk } else { ended = true }
        }
    }

    private func deliver(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        lineNumber += 1
        if lineNumber == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) { return line.dropFirst(3) }
        return line
    }
}
