import CloudQueue
import DataAPI
import Foundation
import JSON
import TestSupport
import Testing

/// Time limits and bounds: a run past its limit is recorded as a timeout; every input out of
/// bounds is refused with a clear error and nothing stored.
@Suite struct CloudQueueLimitTests {
    @Test func aRunPastItsTimeLimitAndGraceIsRecordedAsATimeout() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue()
            let t0 = fixture.clock.now()
            _ = try await queue.enqueue(
                TaskRequest(function: "hang", attempts: 2, backoff: .seconds(30), timeout: .seconds(10), uniqueId: "slow"))
            let run = Task { await queue.runDue() }
            #expect(await fixture.clock.waitForSleepers(2))
            // The deadline the function was given passes; the queue waits its grace (5 s) more.
            fixture.clock.advance(by: .seconds(10))
            #expect(try await queue.task(uniqueId: "slow")?.status == .running)
            fixture.clock.advance(by: .seconds(5))
            #expect(await run.value == 1)
            var record = try #require(try await queue.task(uniqueId: "slow"))
            #expect(record.history.map(\.outcome) == [.timeout])
            #expect(record.history.first?.statusCode == 503)
            #expect(record.history.first?.endedAt == t0.addingTimeInterval(15))
            #expect(record.status == .queued && record.retryAt == t0.addingTimeInterval(45))

            // The invoker's own timeout (it stops the function at the deadline) counts the same.
            _ = try await queue.enqueue(TaskRequest(function: "slowTimeout", uniqueId: "stopped"))
            #expect(await queue.runDue() == 1)
            record = try #require(try await queue.task(uniqueId: "stopped"))
            #expect(record.status == .failed && record.history.map(\.outcome) == [.timeout])
            #expect(record.history.first?.logs == ["stopped at the deadline"])
        }
    }

    /// A running task removed and enqueued again under its uniqueId is a new task: when the old
    /// run ends (here at its time limit), its outcome must not land on the new one, which the
    /// same host claimed with the same attempt number but another lease.
    @Test func aRemovedTaskEnqueuedAgainKeepsItsOwnRunsOutcome() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue()
            _ = try await queue.enqueue(TaskRequest(function: "hang", timeout: .seconds(10), uniqueId: "again"))
            let first = Task { await queue.runDue() }
            #expect(await fixture.clock.waitForSleepers(2))
            fixture.clock.advance(by: .seconds(1))
            try await queue.remove(uniqueId: "again")
            _ = try await queue.enqueue(TaskRequest(function: "hang", timeout: .seconds(60), uniqueId: "again"))
            let second = Task { await queue.runDue() }
            #expect(await fixture.clock.waitForSleepers(4))
            // The first run passes its limit and grace; the second is still within its own.
            fixture.clock.advance(by: .seconds(15))
            #expect(await first.value == 1)
            let record = try #require(try await queue.task(uniqueId: "again"))
            #expect(record.status == .running && record.history.isEmpty, "\(record.status) \(record.history.map(\.outcome))")
            #expect(record.timeout == .seconds(60))
            second.cancel()
            _ = await second.value
        }
    }

    @Test func anAtMostOnceTaskThatTimesOutIsNotRunAgain() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue()
            _ = try await queue.enqueue(TaskRequest(function: "slowTimeout", attempts: 3, deliveryMode: .atMostOnce, uniqueId: "once"))
            #expect(await queue.runDue() == 1)
            let record = try #require(try await queue.task(uniqueId: "once"))
            #expect(record.status == .failed && record.attempt == 1)
            // An ordinary error is retried in both modes (LeanEngine's deliveryMode is about the unknown).
            _ = try await queue.enqueue(TaskRequest(function: "fail", attempts: 2, backoff: .zero, deliveryMode: .atMostOnce, uniqueId: "err"))
            #expect(await queue.runDue() == 1)
            #expect(await queue.runDue() == 1)
            #expect(try await queue.task(uniqueId: "err")?.attempt == 2)
        }
    }

    static let bad: [(String, TaskRequest)] = [
        ("function", TaskRequest(function: "")),
        ("function", TaskRequest(function: "a b")),
        ("function", TaskRequest(function: String(repeating: "f", count: 129))),
        ("params", TaskRequest(function: "echo", params: [1, 2])),
        ("params", TaskRequest(function: "echo", params: ["big": .string(String(repeating: "x", count: 40_000))])),
        ("user", TaskRequest(function: "echo", userId: "../_User")),
        ("attempts", TaskRequest(function: "echo", attempts: 0)),
        ("attempts", TaskRequest(function: "echo", attempts: 11)),
        ("backoff", TaskRequest(function: "echo", backoff: .milliseconds(-1))),
        ("backoff", TaskRequest(function: "echo", backoff: .seconds(86_401))),
        ("delay", TaskRequest(function: "echo", delay: .seconds(30 * 86_400 + 1))),
        ("keepResult", TaskRequest(function: "echo", keepResult: .seconds(-1))),
        ("priority", TaskRequest(function: "echo", priority: 9_007_199_254_740_992)),
        ("timeout", TaskRequest(function: "echo", timeout: .milliseconds(999))),
        ("timeout", TaskRequest(function: "echo", timeout: .seconds(15 * 60 + 1))),
        ("uniqueId", TaskRequest(function: "echo", uniqueId: "")),
        ("uniqueId", TaskRequest(function: "echo", uniqueId: String(repeating: "u", count: 33))),
        ("uniqueId", TaskRequest(function: "echo", uniqueId: "a/b")),
        ("uniqueId", TaskRequest(function: "echo", uniqueId: "é")),
        ("uniqueId", TaskRequest(function: "echo", uniqueId: String(repeating: "t", count: 129), origin: .timer("t"))),
        // Timers' firings are named so; any other task taking such an id would stand in for one.
        ("uniqueId", TaskRequest(function: "echo", uniqueId: "timer-nightly-1767225600")),
        ("uniqueId", TaskRequest(function: "echo", uniqueId: "timer-x", origin: .code)),
    ]

    @Test(arguments: bad.indices)
    func aRequestOutOfBoundsIsRefusedAndNothingIsStored(index: Int) async throws {
        let (field, request) = Self.bad[index]
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue()
            let error = await expectQueueError(.badRequest, code: 1) { _ = try await queue.enqueue(request) }
            #expect(error?.message.hasPrefix(field) == true, "\(String(describing: error))")
            #expect(try await queue.tasks(status: nil, limit: 100, after: nil).isEmpty)
        }
    }

    @Test func theBoundsThemselvesAreAccepted() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue()
            _ = try await queue.enqueue(
                TaskRequest(
                    function: "echo", params: ["x": .string(String(repeating: "x", count: 32_000))], attempts: 10,
                    backoff: .seconds(86_400), delay: .seconds(30 * 86_400), keepResult: .seconds(30 * 86_400),
                    priority: -9_007_199_254_740_991, timeout: .seconds(15 * 60), uniqueId: String(repeating: "u", count: 32)))
            _ = try await queue.enqueue(
                TaskRequest(function: "echo", uniqueId: "timer-" + String(repeating: "n", count: 64) + "-1767225600", origin: .timer("n")))
            #expect(try await queue.tasks(status: .queued, limit: 100, after: nil).count == 2)
        }
    }

    @Test func aFullQueueRefusesMoreUntilATaskFinishes() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue { $0.maxQueued = 2 }
            _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "a"))
            _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "b"))
            await expectQueueError(.tooMany, code: 429) { _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "c")) }
            #expect(await queue.runDue() == 2)
            _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "c"))
        }
    }

    @Test func stagingHasATenthOfTheQueueAndItsOwnUniqueIds() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue { $0.maxQueued = 20 }
            _ = try await queue.enqueue(TaskRequest(function: "echo", environment: .staging, uniqueId: "job"))
            _ = try await queue.enqueue(TaskRequest(function: "echo", environment: .staging, uniqueId: "s2"))
            let error = await expectQueueError(.tooMany, code: 429) {
                _ = try await queue.enqueue(TaskRequest(function: "echo", environment: .staging, uniqueId: "s3"))
            }
            #expect(error?.message == "Too many tasks queued: at most 2 of staging may wait at once.")
            // Production's room is its own; staging's "job" doesn't take production's id.
            let mine = try await queue.enqueue(TaskRequest(function: "echo", params: ["p": 1], uniqueId: "job"))
            #expect(mine.environment == .production)
            #expect(try await queue.task(uniqueId: "job")?.params == ["p": 1])
            #expect(try await queue.task(uniqueId: "job", in: .staging)?.environment == .staging)
            await expectQueueError(.duplicate) { _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "job")) }
            // Removing by id takes production's first; staging's then.
            try await queue.remove(uniqueId: "job")
            #expect(try await queue.task(uniqueId: "job")?.environment == .staging)
        }
    }

    @Test func finishedRecordsPastTheirCapGoOldestFirst() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue { $0.maxKept = 3 }
            for index in 0..<5 {
                _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "done\(index)"))
                #expect(await queue.runDue() == 1)
                fixture.clock.advance(by: .seconds(1))
            }
            // The next pass sweeps: the two oldest results go before their keepResult.
            #expect(await queue.runDue() == 0)
            let kept = try await queue.tasks(status: .success, limit: 100, after: nil).map(\.uniqueId)
            #expect(kept == ["done2", "done3", "done4"])
        }
    }

    @Test func tasksEnqueuedTogetherStopAtTheCap() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue { $0.maxQueued = 5 }
            let accepted = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<20 {
                    group.addTask { (try? await queue.enqueue(TaskRequest(function: "echo", uniqueId: "race\(index)"))) != nil }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(accepted == 5)
            #expect(try await queue.tasks(status: nil, limit: 100, after: nil).count == 5)
        }
    }

    @Test func readsAndManagementRefuseMalformedIds() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue()
            await expectQueueError(.badRequest) { _ = try await queue.task(uniqueId: "../../classes/_User") }
            await expectQueueError(.badRequest) { _ = try await queue.task(uniqueId: "") }
            await expectQueueError(.badRequest) { _ = try await queue.tasks(status: nil, limit: 0, after: nil) }
            await expectQueueError(.badRequest) { _ = try await queue.tasks(status: nil, limit: 101, after: nil) }
            await expectQueueError(.badRequest) { _ = try await queue.tasks(status: nil, limit: 10, after: "a b") }
            await expectQueueError(.notFound) { try await queue.remove(uniqueId: "nobody") }
            #expect(try await queue.task(uniqueId: "nobody") == nil)
            _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "gone"))
            try await queue.remove(uniqueId: "gone")
            #expect(try await queue.task(uniqueId: "gone") == nil)
            #expect(await queue.runDue() == 0)
        }
    }

    @Test func aLargeResultIsNotKeptAndTheRecordSaysSo() async throws {
        try await QueueFixture.run { fixture in
            let queue = try await fixture.queue { $0.maxResultBytes = 100 }
            _ = try await queue.enqueue(
                TaskRequest(function: "echo", params: ["x": .string(String(repeating: "x", count: 200))], uniqueId: "big"))
            #expect(await queue.runDue() == 1)
            let record = try #require(try await queue.task(uniqueId: "big"))
            #expect(record.status == .success && record.result == nil)
            #expect(record.history.first?.logs.last?.contains("not kept") == true)
        }
    }
}
