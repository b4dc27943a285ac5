import CloudQueue
package import Foundation
import Synchronization

/// A queue clock the test moves by hand: `now()` stands still until `advance(by:)` or `set(_:)`,
/// which wake every sleeper whose deadline has come, in deadline order. Nothing depends on
/// real time passing, so queue and timer tests are exact and never sleep.
package final class ManualQueueClock: QueueClock {
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [Sleeper] = []
        var nextId: UInt64 = 0
        /// Continuations of `waitForSleepers` calls, with the count each waits for.
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Mutex<State>

    /// A clock standing at `start` (by default 2026-01-01T00:00:00Z, a whole second).
    package init(start: Date = Date(timeIntervalSince1970: 1_767_225_600)) {
        state = Mutex(State(now: start))
    }

    /// The clock's time.
    package func now() -> Date { state.withLock { $0.now } }

    /// Returns once the clock is moved to `deadline` or past it.
    package func sleep(until deadline: Date) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Checked under the lock `onCancel` takes: a cancellation that came before the
                // sleeper was registered (and so found nothing to remove) is seen here.
                let (resumeNow, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if deadline <= state.now || Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (false, Self.satisfiedWatchers(&state))
                }
                for watcher in watchers { watcher.resume() }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward, waking the sleepers whose deadline has come.
    package func advance(by duration: Duration) {
        let parts = duration.components
        let seconds = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
        set(now().addingTimeInterval(seconds))
    }

    /// Moves the clock to `date` (never backwards), waking the sleepers whose deadline has come.
    package func set(_ date: Date) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = max(state.now, date)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// How many callers are sleeping on the clock now.
    package var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Returns once at least `count` callers sleep on the clock (so a test advances it only
    /// after the code under test waits on it), or after `timeout` of real time, which fails
    /// the test through the returned false.
    package func waitForSleepers(_ count: Int, timeout: Duration = .seconds(10)) async -> Bool {
        let watcher = Task {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if state.sleepers.count >= count { return true }
                    state.watchers.append((count, continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await watcher.value
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            if !first {
                // Release the watcher so the group can end.
                let stale = state.withLock { state in
                    defer { state.watchers.removeAll() }
                    return state.watchers.map(\.continuation)
                }
                for continuation in stale { continuation.resume() }
            }
            return first
        }
    }

    private static func satisfiedWatchers(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
        state.watchers.removeAll { $0.count <= count }
        return ready
    }
}
