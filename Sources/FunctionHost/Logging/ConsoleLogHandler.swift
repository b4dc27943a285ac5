import Foundation
public import Logging

/// Writes log lines to standard output, rendering a logger's metadata only when it logs.
///
/// swift-log's `StreamLogHandler` renders all its metadata each time one key is set, and every
/// request sets one (its id): 3–4% of a request's time went to lines never written. A line is
/// formatted where it is logged and handed to a `ConsoleOutput`, which writes it later, in a
/// batch with others, from its own thread; the request log's line (`logRequest`) is handed over
/// as its fields and formatted there too.
public struct ConsoleLogHandler: LogHandler {
    /// The logger's label, printed on each line.
    public let label: String
    /// The lowest level written.
    public var logLevel: Logger.Level
    /// The metadata every line of this logger carries.
    public var metadata: Logger.Metadata = [:]

    /// Where whole lines go, in the order they are logged.
    private let output: ConsoleOutput

    /// Creates a handler for `label` writing lines at `level` and above to `output` (one output
    /// for all the process's handlers, so that their lines never interleave).
    public init(label: String, level: Logger.Level = .info, output: ConsoleOutput) {
        self.label = label
        self.logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        output.write(
            Self.line(
                at: ConsoleTimestamp.now(), level: event.level, label: label, metadata: metadata, adding: event.metadata,
                message: event.message.description, error: event.error))
    }

    /// Hands a request's line over as its fields (`RequestObserver`): the output's writer
    /// formats it, the line `log(event:)` writes for `info("request", metadata: line.metadata)`.
    /// Only the second it was logged in is read here.
    func logRequest(_ request: RequestLogLine) {
        guard logLevel <= .info else { return }
        let logged = time(nil)
        let (label, metadata) = (label, metadata)
        output.write(charging: request.estimatedSize + label.utf8.count + 48 * metadata.count) { out in
            var seconds = logged
            var parts = tm()
            gmtime_r(&seconds, &parts)
            Self.appendRequestLine(to: &out, at: parts, label: label, metadata: metadata, request: request)
        }
    }

    /// The request's line as `line(...)` prints it for `info("request", metadata:)` with the
    /// request's fields, appended byte by byte: the writer formats every request's line, and
    /// string interpolation, a filtered copy of the metadata and an array of fields made most of
    /// its cost.
    private static func appendRequestLine(
        to out: inout [UInt8], at time: tm, label: String, metadata: Logger.Metadata, request: RequestLogLine
    ) {
        ConsoleTimestamp.append(time, to: &out)
        out.append(contentsOf: " info ".utf8)
        out.append(contentsOf: label.utf8)
        out.append(contentsOf: " :".utf8)
        // The handler's own metadata (Hummingbird's request id) joins the fields in key order; a
        // key the line has itself is the line's.
        var own: [(key: String, value: String)] = []
        for (key, value) in metadata where !RequestLogLine.fieldNames.contains(key) { own.append((key, value.description)) }
        if own.count > 1 { own.sort { $0.key < $1.key } }
        request.appendFields(mergedWith: own, to: &out)
        out.append(contentsOf: " ".utf8)
        out.append(contentsOf: RequestLogLine.message.utf8)
        out.append(UInt8(ascii: "\n"))
    }

    /// A whole line: time, level, label, the logger's and the event's metadata sorted by key
    /// (the event's value wins), the message, the error.
    private static func line(
        at time: String, level: Logger.Level, label: String, metadata: Logger.Metadata, adding extra: Logger.Metadata?,
        message: String, error: (any Error)?
    ) -> String {
        var all = metadata
        if let extra { all.merge(extra) { _, line in line } }
        var line = time
        line += " \(level) \(label) :"
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        line += " \(message)"
        if let error { line += " error=\(error)" }
        line += "\n"
        return line
    }
}

/// The time a console line starts with: ISO 8601 in UTC, to the second (`2026-11-26T19:29:27Z`),
/// as Foundation's `.iso8601` style prints it, without its calendar machinery: that took about
/// a tenth of each request line's cost.
enum ConsoleTimestamp {
    /// The current time.
    static func now() -> String {
        var seconds = time(nil)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return text(parts)
    }

    /// `parts` (a broken-down UTC time, years 0 to 9999) as the line prints it.
    static func text(_ parts: tm) -> String {
        String(unsafeUninitializedCapacity: size) { bytes in
            write(parts, into: bytes)
            return size
        }
    }

    /// `text(parts)`, appended to `out` without a string between.
    static func append(_ parts: tm, to out: inout [UInt8]) {
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: size))
        out.withUnsafeMutableBufferPointer { all in
            write(parts, into: UnsafeMutableBufferPointer(rebasing: all[start..<start + size]))
        }
    }

    /// How many bytes the time takes.
    private static let size = 20

    /// The time's 20 bytes, written in place.
    private static func write(_ parts: tm, into bytes: UnsafeMutableBufferPointer<UInt8>) {
        func put(_ value: Int32, width: Int, at offset: Int) {
            var rest = value
            for index in (offset..<offset + width).reversed() {
                bytes[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
        }
        put(parts.tm_year + 1900, width: 4, at: 0)
        put(parts.tm_mon + 1, width: 2, at: 5)
        put(parts.tm_mday, width: 2, at: 8)
        put(parts.tm_hour, width: 2, at: 11)
        put(parts.tm_min, width: 2, at: 14)
        put(parts.tm_sec, width: 2, at: 17)
        (bytes[4], bytes[7], bytes[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: "T"))
        (bytes[13], bytes[16], bytes[19]) = (UInt8(ascii: ":"), UInt8(ascii: ":"), UInt8(ascii: "Z"))
    }
}
