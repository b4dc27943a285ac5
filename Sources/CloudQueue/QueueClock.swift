public import Foundation

/// The time the queue reads and waits on. Injected: the host uses `SystemQueueClock`; tests use a
/// clock they move by hand, so retries, delays and leases are checked at exact times, without
/// sleeping.
public protocol QueueClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Returns once `deadline` has come (at once when it has passed).
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The wall clock.
public struct SystemQueueClock: QueueClock {
    /// Creates the wall clock.
    public init() {}

    /// The current time.
    public func now() -> Date { Date() }

    /// Sleeps until `deadline` on the continuous clock (the wall clock's distance to it).
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        guard seconds > 0 else {
            try Task.checkCancellation()
            return
        }
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}
