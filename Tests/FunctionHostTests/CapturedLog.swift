import Logging
import Synchronization

/// Every line a server logged, with its metadata, for tests that check what logs hold.
final class CapturedLog: Sendable {
    private let storage = Mutex<[String]>([])

    /// The lines so far.
    var lines: [String] { storage.withLock { $0 } }

    /// A handler that appends here.
    var handler: Handler { Handler(log: self) }

    fileprivate func append(_ line: String) { storage.withLock { $0.append(line) } }

    /// The swift-log handler.
    struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
            log.append("\(event.level) \(event.message) \(all)")
        }
    }
}
