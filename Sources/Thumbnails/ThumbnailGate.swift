import Synchronization

/// At most `slots` thumbnails made at once: each takes a core and libvips' buffers, so past the
/// slots a request waits up to `maxWait` for one to free, then is refused (503) rather than
/// queued without end.
///
/// Shared fairly between clients (the address the host reads for its rate limits): one client
/// holds at most `slotsPerClient` slots (never all of them when there are two or more) and
/// `waitersPerClient` places in the queue, and a freed slot goes to the longest-waiting request
/// of the client running the fewest (the client giving it back counted as still running it).
/// So a client sending slow images back to back can't keep another one out: that one's request
/// takes the next slot any other client frees.
public final class ThumbnailGate: Sendable {
    /// How many thumbnails may be made at once.
    public let slots: Int
    /// How long a request waits for a slot.
    public let maxWait: Duration
    /// The most slots one client holds: half of them, rounded up, and one fewer than all.
    public var slotsPerClient: Int { slots > 1 ? min(slots - 1, (slots + 1) / 2) : 1 }
    /// The most requests waiting at once: eight for each slot.
    public var maxWaiters: Int { 8 * slots }
    /// The most requests one client has waiting: half of the queue, so another always finds a place.
    public var waitersPerClient: Int { (maxWaiters + 1) / 2 }

    private struct Waiter {
        let id: Int
        let client: String
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var busy = 0
        /// The slots each client holds (clients holding none are left out).
        var held: [String: Int] = [:]
        var waiters: [Waiter] = []
        var nextID = 0
        /// Those waiting for a number of waiters (`untilWaiting`).
        var watchers: [(id: Int, count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        mutating func take(_ client: String) {
            busy += 1
            held[client, default: 0] += 1
        }

        mutating func give(_ client: String) {
            busy = max(0, busy - 1)
            let left = (held[client] ?? 1) - 1
            held[client] = left > 0 ? left : nil
        }

        func waiting(_ client: String) -> Int {
            waiters.count { $0.client == client }
        }
    }

    private let state = Mutex(State())

    /// Creates a gate of `slots` (at least one) where a request waits up to `maxWait`.
    public init(slots: Int, maxWait: Duration) {
        self.slots = max(1, slots)
        self.maxWait = maxWait
    }

    /// What `enter` decided without waiting.
    private enum Admission {
        case granted, refused, queued(id: Int, due: [CheckedContinuation<Void, Never>])
    }

    /// Takes a slot for `client`, waiting up to `maxWait` for one; false when none freed in time,
    /// or the client already holds its share of the slots and of the queue. A slot taken must be
    /// given back with `leave(client:)`.
    public func enter(client: String) async -> Bool {
        let immediate: Bool? = state.withLock { state in
            if state.busy < slots, state.held[client, default: 0] < slotsPerClient {
                state.take(client)
                return true
            }
            return maxWait <= .zero ? false : nil
        }
        if let immediate { return immediate }
        return await withCheckedContinuation { continuation in
            let admission: Admission = state.withLock { state in
                if state.busy < slots, state.held[client, default: 0] < slotsPerClient {
                    state.take(client)
                    return .granted
                }
                guard state.waiters.count < maxWaiters, state.waiting(client) < waitersPerClient else { return .refused }
                let id = state.nextID
                state.nextID += 1
                state.waiters.append(Waiter(id: id, client: client, continuation: continuation))
                let count = state.waiters.count
                let due = state.watchers.filter { $0.count <= count }.map(\.continuation)
                state.watchers.removeAll { $0.count <= count }
                return .queued(id: id, due: due)
            }
            switch admission {
            case .granted: continuation.resume(returning: true)
            case .refused: continuation.resume(returning: false)
            case .queued(let id, let due):
                due.forEach { $0.resume() }
                Task { [maxWait] in
                    try? await Task.sleep(for: maxWait)
                    self.expire(id)
                }
            }
        }
    }

    /// Gives `client`'s slot back: to the longest-waiting request of the client running the
    /// fewest (`client` counted with the slot it gives back, so others go first), else to the pool.
    public func leave(client: String) {
        let next: Waiter? = state.withLock { state in
            var chosen: (index: Int, running: Int)?
            for (index, waiter) in state.waiters.enumerated() {
                let running = state.held[waiter.client, default: 0]
                // A client at its share waits for one of its own slots, not another's.
                guard running < slotsPerClient || waiter.client == client else { continue }
                if chosen == nil || running < chosen!.running { chosen = (index, running) }
            }
            state.give(client)
            guard let chosen else { return nil }
            let waiter = state.waiters.remove(at: chosen.index)
            state.take(waiter.client)
            return waiter
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

    /// How many slots `client` holds now.
    public func slots(heldBy client: String) -> Int { state.withLock { $0.held[client, default: 0] } }

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
