package import Logging
import Synchronization

/// Every line a server logged, with its metadata, for tests that check what logs hold.
package final class CapturedLog: Sendable {
    private struct Storage {
        var lines: [String] = []
        /// Tests waiting for a line holding some text, by ticket.
        var waiters: [Int: (text: String, continuation: CheckedContinuation<String?, Never>)] = [:]
        var nextTicket = 0
    }

    private let storage = Mutex(Storage())

    /// An empty log.
    package init() {}

    /// The lines so far.
    package var lines: [String] { storage.withLock { $0.lines } }

    /// A handler that appends here.
    package var handler: Handler { Handler(log: self) }

    /// The first line holding `text`, once it is logged (for what a server logs after it has
    /// answered); nil if none is within `limit`, a bound against hanging, not a timing.
    package func line(containing text: String, within limit: Duration = .seconds(60)) async -> String? {
        let ticket = storage.withLock { storage -> Int in
            storage.nextTicket += 1
            return storage.nextTicket
        }
        let giveUp = Task { [self] in
            try? await Task.sleep(for: limit)
            storage.withLock { $0.waiters.removeValue(forKey: ticket) }?.continuation.resume(returning: nil)
        }
        defer { giveUp.cancel() }
        return await withCheckedContinuation { continuation in
            let found = storage.withLock { storage -> String?? in
                if let line = storage.lines.first(where: { $0.contains(text) }) { return .some(line) }
                storage.waiters[ticket] = (text, continuation)
                return .none
            }
            if let found { continuation.resume(returning: found) }
        }
    }

    fileprivate func append(_ line: String) {
        let woken = storage.withLock { storage in
            storage.lines.append(line)
            let tickets = storage.waiters.filter { line.contains($0.value.text) }.map(\.key)
            return tickets.compactMap { storage.waiters.removeValue(forKey: $0)?.continuation }
        }
        for continuation in woken { continuation.resume(returning: line) }
    }

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
