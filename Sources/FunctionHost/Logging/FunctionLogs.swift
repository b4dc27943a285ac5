import Foundation
import Logging
import NIOCore
import Synchronization

/// The recent log lines of cloud functions and hooks, per environment, for `GET /engine/logs`
/// and `functionhost logs`: the last `capacity` lines of each, numbered so a follower asks only
/// for what is new.
///
/// Kept in this process's memory: with several hosts, each holds the lines of the calls it ran
/// (the full record is each host's log output, where every line also goes).
final class FunctionLogs: Sendable {
    /// One line.
    struct Entry: Sendable {
        /// Its number, increasing over the process's life.
        var sequence: Int
        /// When it was logged.
        var logged: Date
        /// When it was logged (ISO 8601): formatted when the line is read, not when it is logged.
        var time: String { logged.formatted(.iso8601) }
        var level: Logger.Level
        var environment: String
        /// The function, or `hook:Class` for a hook.
        var source: String
        var message: String
        /// The rest of its metadata: version, request id, ...
        var metadata: [String: String]
    }

    private struct Storage {
        /// Each environment's lines, oldest first: a ring, so the oldest leaves without moving the rest.
        var lines: [String: CircularBuffer<Entry>] = [:]
        var next = 1
    }

    private let storage = Mutex(Storage())
    /// The metadata that says where a line comes from, kept apart from the rest.
    private static let sourceKeys: Set<String> = ["function", "hook", "class", "environment", "engine"]
    let capacity: Int

    init(capacity: Int = 1000) {
        self.capacity = capacity
    }

    /// Records a line that carries a `function`, `hook` or `engine` tag; other lines are not
    /// function logs.
    func record(level: Logger.Level, message: String, metadata: Logger.Metadata) {
        let source: String
        if case .string(let function)? = metadata["function"] {
            source = function
        } else if case .string(let hook)? = metadata["hook"] {
            source = "\(hook):\(metadata["class"].map { "\($0)" } ?? "")"
        } else if metadata["engine"] != nil {
            // What an app's engine process printed (`EngineSupervisor`).
            source = "engine"
        } else {
            return
        }
        let environment = metadata["environment"].map { "\($0)" } ?? "production"
        var rest: [String: String] = [:]
        for (key, value) in metadata where !Self.sourceKeys.contains(key) {
            rest[key] = "\(value)"
        }
        let logged = Date.now
        storage.withLock { storage in
            let entry = Entry(
                sequence: storage.next, logged: logged, level: level, environment: environment, source: source,
                message: message, metadata: rest)
            storage.next += 1
            storage.lines[environment, default: CircularBuffer(initialCapacity: 16)].append(entry)
            if storage.lines[environment]!.count > capacity { storage.lines[environment]!.removeFirst() }
        }
    }

    /// An environment's lines numbered after `after`, oldest first, at most `limit` (the newest).
    func lines(environment: String, after: Int = 0, limit: Int) -> [Entry] {
        let all = storage.withLock { $0.lines[environment] ?? [] }
        return Array(all.filter { $0.sequence > after }.suffix(limit))
    }
}

/// Passes every line to the handler it wraps, and hands the lines from `.info` up, whatever the
/// server's own level, with all their metadata to `record`: function and hook lines to
/// `FunctionLogs`, a task's call lines to its `CallLogCapture`.
struct RecordingLogHandler: LogHandler {
    var inner: any LogHandler
    let record: @Sendable (Logger.Level, String, Logger.Metadata) -> Void
    /// Function lines are kept from this level, even when the server writes fewer.
    static let recordedLevel = Logger.Level.info

    var logLevel: Logger.Level {
        get { min(inner.logLevel, Self.recordedLevel) }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        if event.level >= inner.logLevel { inner.log(event: event) }
        guard event.level >= Self.recordedLevel else { return }
        var all = inner.metadata
        if let extra = event.metadata { all.merge(extra) { _, line in line } }
        record(event.level, "\(event.message)", all)
    }
}

extension Logger {
    /// This logger, also recording its function and hook lines in `logs`.
    func recording(into logs: FunctionLogs) -> Logger {
        var logger = self
        logger.handler = RecordingLogHandler(inner: handler) { logs.record(level: $0, message: $1, metadata: $2) }
        return logger
    }

    /// This logger, also keeping its lines in `capture`.
    func capturing(into capture: CallLogCapture) -> Logger {
        var logger = self
        logger.handler = RecordingLogHandler(inner: handler) { level, message, _ in capture.record(level: level, message: message) }
        return logger
    }
}
