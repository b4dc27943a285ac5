package import JSON
package import LiveQuery
import Synchronization

/// A LiveQuery connection for tests: it records every event pushed to it, lets a test await
/// the n-th with a bounded wait (the wait only fails the test; nothing sleeps to synchronise),
/// and refuses pushes past `capacity` events, as a full socket queue does.
package final class RecordingSink: LiveQuerySink {
    private struct State {
        var events: [LiveEvent] = []
        var waiters: [Int: (count: Int, continuation: CheckedContinuation<Bool, Never>)] = [:]
        var nextWaiter = 0
        var expired: Set<Int> = []
    }

    private let state = Mutex(State())
    private let capacity: Int
    /// The client address the connection came from; nil for none (in-process).
    package let client: String?
    private let (losses, lossSignal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))

    /// A sink that takes up to `capacity` events in all, as a connection from `client`.
    package init(capacity: Int = .max, client: String? = nil) {
        self.capacity = capacity
        self.client = client
    }

    package func push(_ events: [LiveEvent]) -> Bool {
        let ready: [CheckedContinuation<Bool, Never>]? = state.withLock { state in
            guard state.events.count + events.count <= capacity else { return nil }
            state.events += events
            let count = state.events.count
            let due = state.waiters.filter { $0.value.count <= count }
            for key in due.keys { state.waiters[key] = nil }
            return due.values.map(\.continuation)
        }
        guard let ready else { return false }
        for continuation in ready { continuation.resume(returning: true) }
        return true
    }

    /// Records that the hub lost events for it; `lossReported` ends its wait.
    package func eventsLost() {
        lossSignal.yield()
    }

    /// Whether the hub reported lost events within `limit` (or before).
    package func lossReported(within limit: Duration = .seconds(20)) async -> Bool {
        let signal = losses
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in signal { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Every event so far.
    package var events: [LiveEvent] { state.withLock { $0.events } }

    /// The n-th event (1-based), once it arrived; nil when it doesn't within `limit`.
    package func event(_ n: Int, within limit: Duration = .seconds(20)) async -> LiveEvent? {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        // The deadline only ends a wait that failed; an event that arrives ends it at once.
        let deadline = Task {
            try? await Task.sleep(for: limit)
            let waiting = state.withLock { state in
                state.expired.insert(id)
                return state.waiters.removeValue(forKey: id)
            }
            waiting?.continuation.resume(returning: false)
        }
        let arrived = await withCheckedContinuation { continuation in
            let answer: Bool? = state.withLock { state in
                if state.events.count >= n { return true }
                if state.expired.contains(id) { return false }
                state.waiters[id] = (n, continuation)
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
        deadline.cancel()
        guard arrived else { return nil }
        return state.withLock { $0.events[n - 1] }
    }

    /// The n-th event's JSON.
    package func json(_ n: Int, within limit: Duration = .seconds(20)) async -> JSONValue? {
        guard let event = await event(n, within: limit) else { return nil }
        return try? JSONValue(parsing: Array(event.json.utf8))
    }
}
