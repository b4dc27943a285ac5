import CloudQueue
import DataAPI
import Foundation
import JSON
import Logging
import Synchronization
import TestSupport
import Testing

/// The host's loop, the observer's events, and a task that loses its host too often.
@Suite struct CloudQueueLoopTests {
    /// What the observer heard, in order.
    final class Heard: QueueObserver {
        let events = Mutex<[String]>([])
        func attemptStarted(_ record: TaskRecord, attempt: Int, delay: Duration) {
            events.withLock { $0.append("started \(record.uniqueId) #\(attempt) after \(delay)") }
        }
        func attemptEnded(_ record: TaskRecord, attempt: TaskAttempt) {
            events.withLock { $0.append("ended \(record.uniqueId) #\(attempt.number) \(attempt.outcome.rawValue) \(record.status.rawValue)") }
        }
        func enqueued(_ record: TaskRecord) {
            events.withLock { $0.append("enqueued \(record.uniqueId)") }
        }
    }

    @Test func theObserverHearsEveryEnqueueAndRunWithItsDelay() async throws {
        try await QueueFixture.run { fixture in
            let heard = Heard()
            let queue = CloudQueue(
                data: try await fixture.data(), clock: fixture.clock, settings: QueueSettings(),
                invoker: { await TestFunctions(host: "h", clock: fixture.clock, calls: fixture.calls).invoke($0) },
                logger: .init(label: "test"), observer: heard)
            _ = try await queue.enqueue(TaskRequest(function: "fail", attempts: 2, backoff: .seconds(1), uniqueId: "x"))
            fixture.clock.advance(by: .milliseconds(250))
            #expect(await queue.runDue() == 1)
            fixture.clock.advance(by: .seconds(3))
            #expect(await queue.runDue() == 1)
            #expect(
                heard.events.withLock { $0 } == [
                    "enqueued x", "started x #1 after 0.25 seconds", "ended x #1 error queued", "started x #2 after 2.0 seconds",
                    "ended x #2 error failed",
                ])
        }
    }

    @Test func theLoopRunsAnEnqueuedTaskAtOnceAndADelayedOneWhenItIsDue() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue { $0.pollInterval = .seconds(3600) }
            let loop = Task { await queue.run() }
            // Idle, the loop waits on the clock for its poll.
            #expect(await fixture.clock.waitForSleepers(1))
            _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "now"))
            #expect(await fixture.calls.waitForEnds(1))
            _ = try await queue.enqueue(TaskRequest(function: "echo", delay: .seconds(90), uniqueId: "later"))
            // Woken by the enqueue, the loop sleeps until the delayed task is due, not for its poll.
            #expect(await fixture.clock.waitForSleepers(1))
            fixture.clock.advance(by: .seconds(89))
            #expect(fixture.calls.order == ["now"])
            fixture.clock.advance(by: .seconds(1))
            #expect(await fixture.calls.waitForEnds(2))
            #expect(fixture.calls.order == ["now", "later"])
            loop.cancel()
            await loop.value
        }
    }

    @Test func aTaskLostWithItsHostTooOftenIsFailed() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue { $0.maxLostAttempts = 1 }
            _ = try await queue.enqueue(TaskRequest(function: "hang", timeout: .seconds(10), uniqueId: "crasher"))
            for round in 1...2 {
                let dying = Task { await queue.runDue() }
                #expect(await fixture.clock.waitForSleepers(2), "round \(round)")
                dying.cancel()
                _ = await dying.value
                fixture.clock.advance(by: .seconds(20))
            }
            #expect(await queue.runDue() == 0)
            let record = try #require(try await queue.task(uniqueId: "crasher"))
            #expect(record.status == .failed && record.lost == 2 && record.failures == 0)
            #expect(record.history.map(\.outcome) == [.lost, .lost])
        }
    }
}
