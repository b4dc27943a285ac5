public import Foundation
public import Logging

/// Writes log lines to standard output, rendering a logger's metadata only when it logs.
///
/// swift-log's `StreamLogHandler` renders all its metadata each time one key is set, and every
/// request sets one (its id): 3–4% of a request's time went to lines never written. The line is
/// formatted where it is logged and handed to a `ConsoleOutput`, which writes it later, in a
/// batch with others, from its own thread.
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
        var all = metadata
        if let extra = event.metadata { all.merge(extra) { _, line in line } }
        var line = ConsoleTimestamp.now()
        line += " \(event.level) \(label) :"
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        line += " \(event.message)"
        if let error = event.error { line += " error=\(error)" }
        line += "\n"
        output.write(line)
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

    /// `parts` (a broken-down UTC time) as the line prints it.
    static func text(_ parts: tm) -> String {
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(parts.tm_year + 1900, 4) + "-" + padded(parts.tm_mon + 1, 2) + "-" + padded(parts.tm_mday, 2) + "T"
            + padded(parts.tm_hour, 2) + ":" + padded(parts.tm_min, 2) + ":" + padded(parts.tm_sec, 2) + "Z"
    }
}
