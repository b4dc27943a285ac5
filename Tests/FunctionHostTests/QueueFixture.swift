import CloudQueue
import Foundation
import FunctionHost
import Synchronization
import TestSupport
import Testing

/// A server whose Cloud Queue runs on a clock the test moves by hand, and the attempts it ends,
/// which a test waits for (the event itself, bounded by a timeout that only fails the test).
final class QueueFixture: QueueObserver {
    let clock = ManualQueueClock()

    private struct State {
        var started = 0
        var ended: [(uniqueId: String, attempt: TaskAttempt)] = []
        var waiters: [(total: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    init() {}

    /// Sets `configuration` to run the queue on this fixture's clock and report to it.
    func configure(_ configuration: inout HostConfiguration) {
        configuration.queue.clock = clock
        configuration.queue.observer = self
    }

    func attemptStarted(_ record: TaskRecord, attempt: Int, delay: Duration) {
        state.withLock { $0.started += 1 }
    }

    func enqueued(_ record: TaskRecord) {}

    func attemptEnded(_ record: TaskRecord, attempt: TaskAttempt) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.ended.append((record.uniqueId, attempt))
            let total = state.ended.count
            defer { state.waiters.removeAll { $0.total <= total } }
            return state.waiters.filter { $0.total <= total }.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    /// The attempts of a task that have ended so far.
    func attempts(of uniqueId: String) -> [TaskAttempt] {
        state.withLock { $0.ended.filter { $0.uniqueId == uniqueId }.map(\.attempt) }
    }

    /// Waits until `count` attempts of the task have ended (its record written), moving the
    /// clock on by `step` each time the queue is idle and asleep on it (time passes only when
    /// nothing runs: a run in flight is waited for, never timed out by the clock), at most
    /// `maxAdvance` in all; fails the test after 30 s of real time without it. Answers the attempts.
    func waitForAttempts(
        _ uniqueId: String, count: Int, step: Duration = .seconds(1), maxAdvance: Duration = .seconds(600),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async -> [TaskAttempt] {
        let giveUp = ContinuousClock.now + .seconds(30)
        var advanced = Duration.zero
        var arrived = false
        while ContinuousClock.now < giveUp {
            if attempts(of: uniqueId).count >= count {
                arrived = true
                break
            }
            let (started, ended) = state.withLock { ($0.started, $0.ended.count) }
            if started > ended {
                guard await waitForEnded(total: ended + 1) else { break }
                continue
            }
            // Both of the host's loops asleep on the clock (the queue's and the timers'): one
            // alone may be the timers' while the queue's pass is still claiming a task, and
            // advancing then would end that claim's lease (seen on a loaded PostgreSQL run).
            guard await clock.waitForSleepers(2) else { break }
            if advanced < maxAdvance, state.withLock({ $0.started }) == started, attempts(of: uniqueId).count < count {
                clock.advance(by: step)
                advanced += step
            }
            await Task.yield()
        }
        #expect(arrived, "task \(uniqueId): \(count) attempts did not end", sourceLocation: sourceLocation)
        return attempts(of: uniqueId)
    }

    /// Waits until `total` attempts of any task have ended, or 30 s of real time (false).
    private func waitForEnded(total: Int) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let ready = self.state.withLock { state -> Bool in
                        if state.ended.count >= total { return true }
                        state.waiters.append((total, continuation))
                        return false
                    }
                    if ready { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(30))
                return false
            }
            let first = await group.next() ?? false
            if !first {
                // Release the waiter so the group can end.
                let stale = state.withLock { state in
                    defer { state.waiters.removeAll() }
                    return state.waiters.map(\.continuation)
                }
                for continuation in stale { continuation.resume() }
            }
            group.cancelAll()
            return first
        }
    }
}
