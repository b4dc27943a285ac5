import Logging
import Synchronization

/// The log lines one call of a function writes, kept for the record of that call (a Cloud Queue
/// task's attempt): the first `lineLimit` lines, each cut to `lineLength` characters, from
/// `.info` up, as `FunctionLogs` keeps them. Lines logged after `close()` (what a script's
/// background work logs once its call has answered) are not the attempt's.
final class CallLogCapture: Sendable {
    /// How many lines one call keeps: a task keeps its last attempts' lines in its record.
    static let lineLimit = 20
    /// How long one kept line may be.
    static let lineLength = 500

    private struct State {
        var lines: [String] = []
        var dropped = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// An empty capture.
    init() {}

    /// Keeps one line, unless the capture is full or closed.
    func record(level: Logger.Level, message: String) {
        let line = "\(level): " + String(message.prefix(Self.lineLength))
        state.withLock { state in
            guard !state.closed else { return }
            guard state.lines.count < Self.lineLimit else {
                state.dropped += 1
                return
            }
            state.lines.append(line)
        }
    }

    /// The lines kept, the last one saying how many more were left out; no line is kept after.
    func close() -> [String] {
        state.withLock { state in
            state.closed = true
            return state.dropped > 0 ? state.lines + ["(\(state.dropped) more lines not kept)"] : state.lines
        }
    }
}
