import CloudQueue
import DataAPI
import Foundation
import JSON
import TestSupport
import Testing

/// A task's life on one host: enqueued, run, recorded; retried with its back-off at the right
/// clock times, dead-lettered, retried from the dead letter; ordered by priority and delay.
@Suite struct CloudQueueRunTests {
    @Test func anEnqueuedTaskRunsAndItsRecordSaysHow() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue()
            let t0 = fixture.clock.now()
            let enqueued = try await queue.enqueue(TaskRequest(function: "echo", params: ["order": 1234], uniqueId: "order-1234"))
            #expect(enqueued.status == .queued && enqueued.uniqueId == "order-1234")
            #expect(try await queue.task(uniqueId: "order-1234")?.leanEngineJSON == ["uniqueId": "order-1234", "status": "queued"])

            fixture.clock.advance(by: .seconds(2))
            #expect(await queue.runDue() == 1)
            let record = try #require(try await queue.task(uniqueId: "order-1234"))
            #expect(record.status == .success)
            #expect(record.result == ["order": 1234])
            #expect(record.statusCode == 200)
            #expect(record.finishedAt == t0.addingTimeInterval(2))
            #expect(record.attempt == 1 && record.leaseOwner == nil)
            #expect(record.history.count == 1)
            #expect(record.history.first?.outcome == .success && record.history.first?.host == "host-a")
            #expect(record.history.first?.logs == ["echo ran on host-a"])
            #expect(
                record.leanEngineJSON == [
                    "uniqueId": "order-1234", "status": "success", "finishedAt": "2026-01-01T00:00:02.000Z", "statusCode": 200,
                    "result": ["order": 1234],
                ])
            // Nothing is due any more.
            #expect(await queue.runDue() == 0)
            #expect(fixture.calls.calls.count == 1)
        }
    }

    @Test func aFailingTaskIsRetriedAfterItsBackoffThenDeadLettered() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue()
            let t0 = fixture.clock.now()
            _ = try await queue.enqueue(TaskRequest(function: "fail", attempts: 3, backoff: .seconds(10), uniqueId: "mail-1"))
            #expect(await queue.runDue() == 1)
            var record = try #require(try await queue.task(uniqueId: "mail-1"))
            #expect(record.status == .queued && record.failures == 1)
            #expect(record.retryAt == t0.addingTimeInterval(10))
            #expect(
                record.leanEngineJSON == [
                    "uniqueId": "mail-1", "status": "queued", "error": "boom (code 1)", "retryAt": "2026-01-01T00:00:10.000Z",
                ])

            // Not a millisecond early.
            fixture.clock.advance(by: .milliseconds(9_999))
            #expect(await queue.runDue() == 0)
            fixture.clock.advance(by: .milliseconds(1))
            #expect(await queue.runDue() == 1)
            record = try #require(try await queue.task(uniqueId: "mail-1"))
            #expect(record.status == .queued && record.retryAt == t0.addingTimeInterval(20))

            fixture.clock.advance(by: .seconds(10))
            #expect(await queue.runDue() == 1)
            record = try #require(try await queue.task(uniqueId: "mail-1"))
            #expect(record.status == .failed && record.failures == 3 && record.attempt == 3)
            #expect(record.retryAt == nil && record.finishedAt == t0.addingTimeInterval(20))
            #expect(record.history.map(\.outcome) == [.error, .error, .error])
            #expect(record.history.map(\.startedAt) == [t0, t0.addingTimeInterval(10), t0.addingTimeInterval(20)])
            #expect(record.history.map(\.logs) == [["about to fail"], ["about to fail"], ["about to fail"]])
            #expect(
                record.leanEngineJSON == [
                    "uniqueId": "mail-1", "status": "failed", "finishedAt": "2026-01-01T00:00:20.000Z", "statusCode": 500,
                    "error": "boom (code 1)",
                ])
            // The dead letter stays; nothing runs it again by itself.
            fixture.clock.advance(by: .seconds(3600))
            #expect(await queue.runDue() == 0)
            #expect(try await queue.tasks(status: .failed, limit: 10, after: nil).map(\.uniqueId) == ["mail-1"])
            #expect(fixture.calls.calls.map(\.attempt) == [1, 2, 3])
        }
    }

    @Test func aDeadLetteredTaskIsRetriedWithItsAttemptsAgain() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue()
            fixture.calls.setFailing("sync-7", true)
            _ = try await queue.enqueue(TaskRequest(function: "flaky", attempts: 2, backoff: .seconds(1), uniqueId: "sync-7"))
            #expect(await queue.runDue() == 1)
            fixture.clock.advance(by: .seconds(1))
            #expect(await queue.runDue() == 1)
            #expect(try await queue.task(uniqueId: "sync-7")?.status == .failed)
            // A task that hasn't failed can't be retried.
            _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "other"))
            await expectQueueError(.badRequest) { _ = try await queue.retry(uniqueId: "other") }
            await expectQueueError(.notFound) { _ = try await queue.retry(uniqueId: "nobody") }

            fixture.calls.setFailing("sync-7", false)
            let retried = try await queue.retry(uniqueId: "sync-7")
            #expect(retried.status == .queued && retried.failures == 0 && retried.error == nil && retried.finishedAt == nil)
            #expect(await queue.runDue() == 2)
            let record = try #require(try await queue.task(uniqueId: "sync-7"))
            #expect(record.status == .success && record.result == "ok")
            #expect(record.history.map(\.outcome) == [.error, .error, .success])
            #expect(record.history.map(\.number) == [1, 2, 3])
        }
    }

    @Test func aFailureThatCantSucceedIsNotRetried() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue()
            _ = try await queue.enqueue(TaskRequest(function: "missing", attempts: 5, uniqueId: "m"))
            #expect(await queue.runDue() == 1)
            let record = try #require(try await queue.task(uniqueId: "m"))
            #expect(record.status == .failed && record.statusCode == 404 && record.attempt == 1)
        }
    }

    @Test func tasksReadAheadYieldToABetterOneEnqueuedLaterAndToThePoll() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue { $0.concurrency = 1 }
            let other = try await fixture.queue(host: "host-b")
            for index in 0..<4 { _ = try await queue.enqueue(TaskRequest(function: "echo", priority: 10 + Int64(index), uniqueId: "b\(index)")) }
            #expect(await queue.runDue() == 1)  // b0; b1...b3 are read ahead.
            // An enqueue on this host goes before what was read ahead.
            _ = try await queue.enqueue(TaskRequest(function: "echo", priority: 1, uniqueId: "first"))
            #expect(await queue.runDue() == 1)
            // Another host's enqueue is seen once the read is a poll interval old, as the poll
            // would see it.
            _ = try await other.enqueue(TaskRequest(function: "echo", priority: 2, uniqueId: "second"))
            #expect(await queue.runDue() == 1)
            fixture.clock.advance(by: .seconds(1))
            #expect(await queue.runDue() == 1)
            #expect(await queue.runDue() == 1)
            // A task read ahead and removed meanwhile is skipped.
            try await other.remove(uniqueId: "b3")
            #expect(await queue.runDue() == 0)
            #expect(fixture.calls.order == ["b0", "first", "b1", "second", "b2"])
        }
    }

    @Test func tasksRunByPriorityThenDueTimeAndDelayedOnesWait() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue { $0.concurrency = 1 }
            _ = try await queue.enqueue(TaskRequest(function: "echo", priority: 5, uniqueId: "five"))
            _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "default"))  // priority: the enqueue time
            _ = try await queue.enqueue(TaskRequest(function: "echo", priority: 1, uniqueId: "one"))
            _ = try await queue.enqueue(TaskRequest(function: "echo", delay: .seconds(5), priority: 0, uniqueId: "delayed"))
            _ = try await queue.enqueue(TaskRequest(function: "echo", priority: 1, uniqueId: "one-later"))
            for _ in 0..<4 { #expect(await queue.runDue() == 1) }
            #expect(fixture.calls.order == ["one", "one-later", "five", "default"])
            #expect(await queue.runDue() == 0)
            #expect(await queue.nextDue() == fixture.clock.now().addingTimeInterval(5))
            fixture.clock.advance(by: .seconds(5))
            #expect(await queue.runDue() == 1)
            #expect(fixture.calls.order.last == "delayed")
        }
    }

    @Test func aHostRunsAtMostItsConcurrencyAtOnce() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue { $0.concurrency = 2 }
            for index in 0..<5 { _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "t\(index)")) }
            #expect(await queue.runDue() == 2)
            #expect(await queue.runDue() == 2)
            #expect(await queue.runDue() == 1)
            #expect(Set(fixture.calls.order) == ["t0", "t1", "t2", "t3", "t4"])
        }
    }
}
