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
        var watchers: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
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

    /// Whether at least `count` requests came to wait for a slot within `limit` (for tests that
    /// stage a wait: they wait on the event itself, and a wait that never comes fails, not hangs).
    package func untilWaiting(_ count: Int, within limit: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.untilWaiting(count)
                return !Task.isCancelled
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

    /// Returns once at least `count` requests wait for a slot, or the task is cancelled.
    private func untilWaiting(_ count: Int) async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let reached = state.withLock { state in
                    if state.waiters.count >= count || Task.isCancelled { return true }
                    state.watchers.append((id, count, continuation))
                    return false
                }
                if reached { continuation.resume() }
            }
        } onCancel: {
            let watcher: CheckedContinuation<Void, Never>? = state.withLock { state in
                guard let index = state.watchers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.watchers.remove(at: index).continuation
            }
            watcher?.resume()
        }
    }
}
