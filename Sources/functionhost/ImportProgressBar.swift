import DataAPI
import Foundation
import Synchronization

/// The progress of an import on standard error, redrawn in place: a bar when the input's size is
/// known, the objects read, the rate and the file. Only on a terminal (`init` is nil otherwise),
/// so logs and CI output get the summary alone.
final class ImportProgressBar: Sendable {
    private let state = Mutex(State())
    private let started = ContinuousClock.now

    private struct State {
        var lastDrawn: ContinuousClock.Instant?
        var width = 0
    }

    /// A bar on standard error, or nil when it is not a terminal.
    init?() {
        guard isatty(FileHandle.standardError.fileDescriptor) != 0 else { return nil }
    }

    /// Redraws the line, at most ten times a second.
    func show(_ progress: ImportProgress) {
        let now = ContinuousClock.now
        let line: String? = state.withLock { state in
            if let last = state.lastDrawn, last.duration(to: now) < .milliseconds(100) { return nil }
            state.lastDrawn = now
            let text = Self.render(progress, seconds: started.duration(to: now).seconds)
            defer { state.width = text.count }
            // Spaces over what a longer earlier line left behind.
            return "\r" + text + String(repeating: " ", count: max(0, state.width - text.count))
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Ends the line, so the summary starts on a new one.
    func finish() {
        let drawn = state.withLock { $0.lastDrawn != nil }
        if drawn { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func render(_ progress: ImportProgress, seconds: Double) -> String {
        var parts: [String] = []
        if let total = progress.totalBytes, total > 0 {
            let fraction = min(1, Double(progress.bytesRead) / Double(total))
            let filled = Int(fraction * 30)
            parts.append(
                "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled) + "] "
                    + String(format: "%3.0f%%", fraction * 100))
        }
        parts.append("\(progress.objects) objects")
        if seconds > 0 { parts.append("\(Int(Double(progress.objects) / seconds))/s") }
        parts.append(progress.file)
        return parts.joined(separator: "  ")
    }
}

extension Duration {
    /// The duration in seconds, with its fraction.
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}
