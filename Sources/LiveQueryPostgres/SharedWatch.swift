import Foundation
import Synchronization

/// What one host knows of the classes every host's subscriptions watch (`fh_watch`), so that its
/// publisher answers "announce this write?" from memory: the set loaded last, whether it is in
/// force, and what this host itself wants recorded.
final class SharedWatch: Sendable {
    private struct State {
        /// The classes some live host watches, as loaded last.
        var classes: Set<String> = []
        /// The watch version the set was loaded at (`fh_watch_version`).
        var version: Int64 = -1
        /// Whether the set is in force: loaded on a connection that listens for changes of it,
        /// and this host's lease renewed recently. While not, every write is announced.
        var following = false
        /// Until when this host's lease holds, by this host's clock.
        var leaseUntil = ContinuousClock.Instant.now
        /// This host's classes, as its hub said last (`ChangeFeed.watch`).
        var desired: Set<String> = []
        /// This host's classes as written to the table.
        var recorded: Set<String> = []
        /// The recorded classes every live host was waited for: a subscribe to one of these
        /// needs no wait. One only written may still be loading elsewhere (a subscribe at the same
        /// moment as the one that wrote it waits too).
        var confirmed: Set<String> = []
        /// Who waits for the next notification of the watch channel (or the next load).
        var waiters: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    /// Whether a write of the class must be announced for another host.
    func announces(_ className: String) -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            !state.following || now >= state.leaseUntil || state.classes.contains(className)
        }
    }

    /// Takes in a set loaded at `version` (ignored when older than the one held) and wakes the
    /// waiters.
    func load(_ classes: Set<String>, version: Int64, lease: Duration) {
        let now = ContinuousClock.now
        wake { state in
            guard version >= state.version else { return }
            state.classes = classes
            state.version = version
            state.following = true
            state.leaseUntil = now + lease
        }
    }

    /// The lease was renewed now.
    func renewed(lease: Duration) {
        let now = ContinuousClock.now
        state.withLock { $0.leaseUntil = now + lease }
    }

    /// The watch connection was lost: every write is announced until it is back.
    func lost() {
        wake { $0.following = false }
    }

    /// The version loaded last.
    var version: Int64 { state.withLock { $0.version } }

    /// Whether the set is in force now (see `State.following`).
    var isFollowing: Bool { state.withLock { $0.following } }

    /// Sets what this host wants recorded; whether that adds a class to what every host was
    /// waited for (then the caller records and waits).
    func want(_ classes: Set<String>) -> Bool {
        state.withLock { state in
            state.desired = classes
            return !classes.isSubset(of: state.confirmed)
        }
    }

    /// Every live host was waited for after `classes` were written.
    func confirm(_ classes: Set<String>) {
        state.withLock { $0.confirmed.formUnion(classes.intersection($0.recorded)) }
    }

    /// What this host wants recorded now, and whether it differs from what is.
    var desired: (classes: Set<String>, changed: Bool) {
        state.withLock { ($0.desired, $0.desired != $0.recorded) }
    }

    /// What this host wrote.
    func wrote(_ classes: Set<String>) {
        state.withLock { state in
            state.recorded = classes
            state.confirmed.formIntersection(classes)
        }
    }

    /// A stream with an element at each notification of the watch channel from now on, and how
    /// to stop it.
    func signals() -> (AsyncStream<Void>, cancel: @Sendable () -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.nextWaiter += 1
            state.waiters[state.nextWaiter] = continuation
            return state.nextWaiter
        }
        let cancel: @Sendable () -> Void = { [weak self] in
            _ = self?.state.withLock { $0.waiters.removeValue(forKey: id) }
            continuation.finish()
        }
        return (stream, cancel)
    }

    /// A notification arrived (another host loaded a set): the waiters look again.
    func notified() { wake() }

    /// Wakes every waiter (after `change`).
    private func wake(_ change: (inout State) -> Void = { _ in }) {
        let waiters = state.withLock { state in
            change(&state)
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.yield() }
    }
}
