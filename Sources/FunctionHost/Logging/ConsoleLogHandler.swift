public import Foundation
public import Logging
import Synchronization

/// Writes log lines to standard output, rendering a logger's metadata only when it logs.
///
/// swift-log's `StreamLogHandler` renders all its metadata each time one key is set, and every
/// request sets one (its id): 3–4% of a request's time went to lines never written.
public struct ConsoleLogHandler: LogHandler {
    /// The logger's label, printed on each line.
    public let label: String
    /// The lowest level written.
    public var logLevel: Logger.Level
    /// The metadata every line of this logger carries.
    public var metadata: Logger.Metadata = [:]

    /// Serialises whole lines from several threads.
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
        var line = "\(Self.timestamp()) \(event.level) \(label) :"
        for (key, value) in all.sorted(by: { $0.key < $1.key }) {
            line += " \(key)=\(value)"
        }
        line += " \(event.message)"
        if let error = event.error { line += " error=\(error)" }
        line += "\n"
        output.write(line)
    }

    /// The time in ISO 8601, to the second, in UTC.
    private static func timestamp() -> String {
        Date.now.formatted(.iso8601)
    }
}

/// Standard output (or another file) behind a lock: lines from several threads never interleave.
public final class ConsoleOutput: Sendable {
    private let lock = Mutex(())
    private let file: FileHandle

    /// Creates an output writing to `file`, standard output unless told.
    public init(file: FileHandle = .standardOutput) {
        self.file = file
    }

    /// Writes a whole line.
    func write(_ line: String) {
        lock.withLock { _ in
            file.write(Data(line.utf8))
        }
    }
}
