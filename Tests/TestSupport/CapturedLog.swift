package import Logging
import Synchronization

/// Every line a server logged, with its metadata, for tests that check what logs hold.
package final class CapturedLog: Sendable {
    private let storage = Mutex<[String]>([])

    /// An empty log.
    package init() {}

    /// The lines so far.
    package var lines: [String] { storage.withLock { $0 } }

    /// A handler that appends here.
    package var handler: Handler { Handler(log: self) }

    fileprivate func append(_ line: String) { storage.withLock { $0.append(line) } }

    /// The swift-log handler.
    package struct Handler: LogHandler {
        package let log: CapturedLog
        package var metadata: Logger.Metadata = [:]
        package var logLevel: Logger.Level = .trace

        package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        package func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
            log.append("\(event.level) \(event.message) \(all)")
        }
    }
}
