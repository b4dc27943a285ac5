import Dispatch
public import Foundation
import Synchronization

/// Standard output (or another file), written in batches by one thread of its own, so that a
/// request that logs a line only hands it over: writing each request's line from the request's
/// own task took about a tenth of a Swift function's time, most of it the `write` call.
///
/// Lines wait in a buffer of bounded size: when the writer falls that far behind, further lines
/// are dropped (never blocking the request, never growing) and counted, and the next batch says
/// how many. `close()` (at shutdown) writes what is waiting; lines written after it are
/// written at once, from the caller.
public final class ConsoleOutput: Sendable {
    /// What waits for the writer.
    private struct Pending {
        var bytes: [UInt8] = []
        /// Lines handed over unformatted, each with where in `bytes` it goes: formatted by the
        /// writer (`write(charging:_:)`).
        var deferred: [(offset: Int, line: @Sendable (inout [UInt8]) -> Void)] = []
        /// What the deferred lines are counted as against the capacity.
        var deferredSize = 0
        /// What the waiting lines are counted as against the capacity.
        var size: Int { bytes.count + deferredSize }
        /// Lines dropped since the last batch, for its warning line.
        var dropped = 0
        /// Lines dropped since the output was made.
        var droppedInAll = 0
        /// Whether the writer waits on `wake`: only then does a line signal it.
        var writerWaits = false
        var closed = false
    }

    private let pending = Mutex(Pending())
    /// Held while a batch is taken and written, so batches reach the file in their order.
    private let writing = Mutex(())
    private let wake = DispatchSemaphore(value: 0)
    private let file: FileHandle
    /// The most bytes waiting; a line that doesn't fit is dropped.
    let capacity: Int
    /// How long the writer lets lines gather once one woke it: one `write` for many lines.
    let gathering: Duration

    /// Creates an output writing to `file`, standard output unless told, holding at most
    /// `capacity` bytes of waiting lines. Without `startsWriter` nothing is written until
    /// `flush()` or `close()` (tests use it to fill the buffer).
    public init(
        file: FileHandle = .standardOutput, capacity: Int = 1 << 20, gathering: Duration = .milliseconds(5),
        startsWriter: Bool = true
    ) {
        self.file = file
        self.capacity = capacity
        self.gathering = gathering
        if startsWriter {
            // Named from inside: Foundation names the system thread only from the running thread.
            let thread = Thread { [self] in
                Thread.current.name = "console-log"
                runWriter()
            }
            thread.start()
        }
    }

    /// Hands a whole line over, or drops it (counted) when the buffer is full.
    func write(_ line: String) {
        hand(size: line.utf8.count) { $0.bytes.append(contentsOf: line.utf8) }
    }

    /// Hands a line over unformatted: `line` appends it to the batch on the writer's thread (in its
    /// turn among the others), so the caller only pays for handing over what it captures. It counts as
    /// `size` bytes against the capacity, and is dropped (counted) when they don't fit.
    func write(charging size: Int, _ line: @escaping @Sendable (inout [UInt8]) -> Void) {
        hand(size: size) { pending in
            pending.deferred.append((pending.bytes.count, line))
            pending.deferredSize += size
        }
    }

    /// Adds a line of `size` bytes with `add` when it fits, wakes the writer if it waits.
    private func hand(size: Int, _ add: (inout Pending) -> Void) {
        let (signals, closed) = pending.withLock { pending -> (Bool, Bool) in
            guard pending.size + size <= capacity else {
                pending.dropped += 1
                pending.droppedInAll += 1
                return (false, pending.closed)
            }
            add(&pending)
            defer { pending.writerWaits = false }
            return (pending.writerWaits, pending.closed)
        }
        if closed {
            flush()
        } else if signals {
            wake.signal()
        }
    }

    /// The lines dropped for want of room since the output was made.
    public var droppedLines: Int { pending.withLock { $0.droppedInAll } }

    /// Writes every waiting line now, from the caller.
    public func flush() {
        writing.withLock { _ in
            let (bytes, deferred, dropped) = pending.withLock { pending in
                defer {
                    pending.bytes = []
                    pending.deferred = []
                    pending.deferredSize = 0
                    pending.dropped = 0
                }
                return (pending.bytes, pending.deferred, pending.dropped)
            }
            if dropped > 0 {
                let warning =
                    "\(ConsoleTimestamp.now()) warning console : dropped=\(dropped) log lines dropped: the log's buffer was full\n"
                put(Array(warning.utf8))
            }
            put(deferred.isEmpty ? bytes : Self.joined(bytes, deferred))
        }
    }

    /// The batch's bytes with the deferred lines formatted in their places.
    private static func joined(_ bytes: [UInt8], _ deferred: [(offset: Int, line: @Sendable (inout [UInt8]) -> Void)]) -> [UInt8] {
        var batch: [UInt8] = []
        batch.reserveCapacity(bytes.count + 200 * deferred.count)
        var from = 0
        for (offset, line) in deferred {
            batch.append(contentsOf: bytes[from..<offset])
            line(&batch)
            from = offset
        }
        batch.append(contentsOf: bytes[from...])
        return batch
    }

    /// Writes what waits and ends the writer: lines logged afterwards are written at once.
    public func close() {
        let signals = pending.withLock { pending in
            pending.closed = true
            defer { pending.writerWaits = false }
            return pending.writerWaits
        }
        if signals { wake.signal() }
        flush()
    }

    /// The writer: sleeps until a line comes, lets others gather, writes them all in one go.
    private func runWriter() {
        while true {
            let state = pending.withLock { pending -> (idle: Bool, closed: Bool) in
                let idle = pending.bytes.isEmpty && pending.deferred.isEmpty && pending.dropped == 0
                if idle, !pending.closed { pending.writerWaits = true }
                return (idle, pending.closed)
            }
            if state.closed {
                flush()
                return
            }
            if state.idle {
                wake.wait()
                Thread.sleep(forTimeInterval: Double(gathering.components.attoseconds) / 1e18 + Double(gathering.components.seconds))
            }
            flush()
        }
    }

    /// Writes `bytes` whole to the file (a short write continues; a failed one loses the batch:
    /// there is nowhere else to say so).
    private func put(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        let descriptor = file.fileDescriptor
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}
