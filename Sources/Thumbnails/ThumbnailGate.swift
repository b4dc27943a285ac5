import Synchronization

/// At most `slots` thumbnails made at once: each takes a core and libvips' buffers, so past the
/// slots a request waits up to `maxWait` for one to free, then is refused (503) rather than
/// queued without end.
public final class ThumbnailGate: Sendable {
    /// How many thumbnails may be made at once.
    public let slots: Int
    /// How long a request waits for a slot.
    public let maxWait: Duration

    private struct Waiter {
        let id: Int
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var busy = 0
        var waiters: [Waiter] = []
        var nextID = 0
        /// Those waiting for a number of waiters (`untilWaiting`).
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// Creates a gate of `slots` (at least one) where a request waits up to `maxWait`.
    public init(slots: Int, maxWait: Duration) {
        self.slots = max(1, slots)
        self.maxWait = maxWait
    }

    /// Takes a slot, waiting up to `maxWait` for one; false when none freed in time. A slot
    /// taken must be given back with `leave()`.
    public func enter() async -> Bool {
        let immediate: Bool? = state.withLock { state in
            if state.busy < slots {
                state.busy += 1
                return true
            }
            return maxWait <= .zero ? false : nil
        }
        if let immediate { return immediate }
        return await withCheckedContinuation { continuation in
            let queued: (id: Int, due: [CheckedContinuation<Void, Never>])? = state.withLock { state in
                if state.busy < slots {
                    state.busy += 1
                    return nil
                }
                let id = state.nextID
                state.nextID += 1
                state.waiters.append(Waiter(id: id, continuation: continuation))
                let count = state.waiters.count
                let due = state.watchers.filter { $0.count <= count }.map(\.continuation)
                state.watchers.removeAll { $0.count <= count }
                return (id, due)
            }
            guard let (id, due) = queued else { return continuation.resume(returning: true) }
            due.forEach { $0.resume() }
            Task { [maxWait] in
                try? await Task.sleep(for: maxWait)
                self.expire(id)
            }
        }
    }

    /// Gives a slot back: to the longest waiting request, else to the pool.
    public func leave() {
        let next: Waiter? = state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.busy = max(0, state.busy - 1)
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.continuation.resume(returning: true)
    }

    /// Refuses a waiter whose wait is over, unless a slot reached it first.
    private func expire(_ id: Int) {
        let waiter: Waiter? = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.continuation.resume(returning: false)
    }

    /// How many slots are taken now.
    public var busySlots: Int { state.withLock { $0.busy } }

    /// Returns once at least `count` requests wait for a slot (for tests that stage a wait).
    package func untilWaiting(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let reached = state.withLock { state in
                if state.waiters.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if reached { continuation.resume() }
        }
    }
}
