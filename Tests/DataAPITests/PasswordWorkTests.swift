import Dispatch
import Foundation
import Synchronization
import Testing

@testable import DataAPI

/// Password derivations run beside Swift's cooperative threads, a few at a time: logins that
/// hash can't stop the rest of the host, and a storm of them takes no more than its width.
@Suite struct PasswordWorkTests {
    /// How many derivations run now, and the most that ever ran at once.
    private final class Gauge: Sendable {
        let running = Atomic<Int>(0)
        let most = Atomic<Int>(0)
    }

    /// Every derivation blocked at once (more of them than there are cores): a task on the
    /// cooperative threads still runs meanwhile, and no more than the width ran at once.
    @Test(.timeLimit(.minutes(1))) func blockedDerivationsLeaveTheCooperativeThreadsFree() async {
        let work = PasswordWork(width: 2)
        let release = DispatchSemaphore(value: 0)
        let gauge = Gauge()
        let started = AsyncStream<Void>.makeStream()
        let count = 2 * ProcessInfo.processInfo.activeProcessorCount + 2
        let derivations = (0..<count).map { index in
            Task {
                await work.run {
                    let now = gauge.running.add(1, ordering: .relaxed).newValue
                    gauge.most.max(now, ordering: .relaxed)
                    started.continuation.yield()
                    release.wait()
                    gauge.running.subtract(1, ordering: .relaxed)
                    return index
                }
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        for _ in 0..<2 { await iterator.next() }
        // Both places are taken by derivations that block their threads; the cooperative
        // threads are not theirs, so this task runs now.
        #expect(await Task.detached { 42 }.value == 42)
        for _ in 0..<count { release.signal() }
        var results: [Int] = []
        for derivation in derivations { results.append(await derivation.value) }
        #expect(results == Array(0..<count))
        #expect(gauge.most.load(ordering: .relaxed) == 2)
    }

    /// A hash made through the pool verifies, and a wrong password doesn't.
    @Test func hashesMadeOnThePoolVerify() async {
        let work = PasswordWork(width: 1)
        let stored = await PasswordHasher.hash("s3cret", on: work)
        #expect(await PasswordHasher.verify("s3cret", against: stored, on: work))
        #expect(await !PasswordHasher.verify("s3cret ", against: stored, on: work))
    }
}
