import Dispatch
import Foundation
import Synchronization

/// Where password derivations run: on threads of their own, at most `width` at once.
///
/// One PBKDF2 derivation is 210 000 rounds, tens of milliseconds of a core (more in a debug
/// build). Run on Swift's cooperative threads (one per core), as many logins as there are cores
/// stopped every other request of the host while they hashed. Here they run on a private
/// queue's threads (Dispatch's overcommitting pool; the global queue's threads are the
/// cooperative ones on Linux) and queue behind
/// each other past `width`, so a login storm takes at most half the cores and the rest of the
/// host keeps answering.
package final class PasswordWork: Sendable {
    /// The host's: half the cores, at least one.
    package static let shared = PasswordWork(width: max(1, ProcessInfo.processInfo.activeProcessorCount / 2))

    /// How many derivations may run at once.
    package let width: Int
    private let queue = DispatchQueue(label: "password-work", attributes: .concurrent)

    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A pool running at most `width` (at least one) derivations at once.
    package init(width: Int) {
        self.width = max(1, width)
    }

    /// Runs `body` on one of the pool's threads once a place is free, and returns its result.
    package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await enter()
        defer { leave() }
        return await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let admitted = state.withLock { state in
                guard state.running < width else {
                    state.waiting.append(continuation)
                    return false
                }
                state.running += 1
                return true
            }
            if admitted { continuation.resume() }
        }
    }

    /// Hands the place to the longest-waiting derivation, or frees it.
    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
