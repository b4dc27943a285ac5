import CloudQueue
import DataAPI
import Foundation
import JSON
import TestSupport
import Testing

/// Several hosts on one database: a uniqueId is taken while its record is kept, a task runs on
/// one host at a time, and a dead host's task is taken back once its lease ends.
@Suite struct CloudQueueSharingTests {
    @Test func aDuplicateUniqueIdIsRefusedWhileItsRecordIsKept() async throws {
        try await QueueFixture.run { fixture in
            let hostA = try await fixture.queue(host: "host-a")
            let hostB = try await fixture.queue(host: "host-b")
            _ = try await hostA.enqueue(TaskRequest(function: "echo", keepResult: .seconds(60), uniqueId: "report-1"))
            // Queued, on either host.
            let duplicate = await expectQueueError(.duplicate, code: 137) {
                _ = try await hostB.enqueue(TaskRequest(function: "echo", uniqueId: "report-1"))
            }
            #expect(duplicate?.message == "A task with uniqueId 'report-1' already exists.")
            #expect(await hostA.runDue() == 1)
            // Finished, while its result is kept.
            fixture.clock.advance(by: .seconds(59))
            await expectQueueError(.duplicate) { _ = try await hostA.enqueue(TaskRequest(function: "echo", uniqueId: "report-1")) }
            #expect(try await hostB.task(uniqueId: "report-1")?.status == .success)

            // Once its time is up the record reads as gone, and the id is free again: taken over
            // at once by an enqueue, or swept by a pass.
            fixture.clock.advance(by: .seconds(1))
            #expect(try await hostB.task(uniqueId: "report-1") == nil)
            let again = try await hostB.enqueue(TaskRequest(function: "echo", params: ["again": true], uniqueId: "report-1"))
            #expect(again.status == .queued)
            #expect(try await hostA.task(uniqueId: "report-1")?.params == ["again": true])

            _ = try await hostA.enqueue(TaskRequest(function: "echo", keepResult: .zero, uniqueId: "swept"))
            #expect(await hostA.runDue() == 2)
            fixture.clock.advance(by: .milliseconds(1))
            #expect(await hostB.runDue() == 0)  // sweeps `swept`
            #expect(try await hostA.tasks(status: nil, limit: 100, after: nil).map(\.uniqueId) == ["report-1"])
        }
    }

    @Test func twoHostsNeverRunOneTaskTwiceAndShareTheWork() async throws {
        try await QueueFixture.run { fixture in
            let hostA = try await fixture.queue(host: "host-a")
            let hostB = try await fixture.queue(host: "host-b")
            // One due task at a time, both hosts reaching for it at once.
            for round in 0..<10 {
                _ = try await hostA.enqueue(TaskRequest(function: "echo", uniqueId: "single-\(round)"))
                async let a = hostA.runDue()
                async let b = hostB.runDue()
                let ran = await a + b
                #expect(ran == 1, "round \(round)")
            }
            #expect(fixture.calls.calls.count == 10)
            // Many due tasks: each host takes its share (two at a time), no task twice.
            for index in 0..<12 { _ = try await hostB.enqueue(TaskRequest(function: "echo", uniqueId: "many-\(index)")) }
            var passes = 0
            while try await hostA.tasks(status: .queued, limit: 100, after: nil).isEmpty == false, passes < 20 {
                async let a = hostA.runDue()
                async let b = hostB.runDue()
                _ = await (a, b)
                passes += 1
            }
            let many = fixture.calls.calls.filter { $0.uniqueId.hasPrefix("many-") }
            #expect(many.count == 12)
            #expect(Set(many.map(\.uniqueId)).count == 12)
            #expect(Set(many.map(\.host)) == ["host-a", "host-b"])
            #expect(fixture.calls.overlaps.isEmpty)
            let done = try await hostA.tasks(status: .success, limit: 100, after: nil)
            #expect(done.count == 22 && done.allSatisfy { $0.attempt == 1 })
        }
    }

    /// Host A claims a task and dies mid-run (its run is cancelled: nothing is recorded, as
    /// when its process is killed); host B takes the task back once A's lease has ended.
    static func hostDiesMidRun(_ fixture: QueueFixture, _ request: TaskRequest) async throws -> (CloudQueue, Date) {
        let hostA = try await fixture.queue(host: "host-a")
        let hostB = try await fixture.queue(host: "host-b")
        _ = try await hostA.enqueue(request)
        let started = fixture.clock.now()
        let dying = Task { await hostA.runDue() }
        // The function hangs on the clock; the queue waits on it for its give-up time.
        #expect(await fixture.clock.waitForSleepers(2))
        dying.cancel()
        _ = await dying.value
        let record = try #require(try await hostB.task(uniqueId: request.uniqueId ?? ""))
        #expect(record.status == .running && record.leaseOwner == "host-a")
        // timeout 10 s + two graces of 5 s.
        #expect(record.leaseUntil == started.addingTimeInterval(20))
        // The lease holds: B leaves the task alone until it ends.
        fixture.clock.advance(by: .milliseconds(19_999))
        #expect(await hostB.runDue() == 0)
        #expect(try await hostB.task(uniqueId: request.uniqueId ?? "")?.status == .running)
        fixture.clock.advance(by: .milliseconds(1))
        return (hostB, started)
    }

    @Test func aDeadHostsTaskIsTakenBackOnceItsLeaseEnds() async throws {
        try await QueueFixture.run { fixture in
            let request = TaskRequest(function: "hang", timeout: .seconds(10), uniqueId: "resize-9")
            let (hostB, started) = try await Self.hostDiesMidRun(fixture, request)
            // B records the lost run and runs the task again at once (it hangs again: B's own
            // give-up time then ends it as a timeout).
            let running = Task { await hostB.runDue() }
            #expect(await fixture.clock.waitForSleepers(2))  // B's function and B's give-up time
            var record = try #require(try await hostB.task(uniqueId: "resize-9"))
            #expect(record.status == .running && record.leaseOwner == "host-b" && record.attempt == 2)
            #expect(record.history.map(\.outcome) == [.lost])
            #expect(record.history.first?.host == "host-a" && record.history.first?.startedAt == started)
            fixture.clock.advance(by: .seconds(15))
            #expect(await running.value == 1)
            record = try #require(try await hostB.task(uniqueId: "resize-9"))
            #expect(record.history.map(\.outcome) == [.lost, .timeout])
            #expect(record.status == .failed && record.lost == 1 && record.failures == 1)
            #expect(fixture.calls.calls.map(\.host) == ["host-a", "host-b"])
        }
    }

    @Test func aDeadHostsAtMostOnceTaskIsFailedNotRunAgain() async throws {
        try await QueueFixture.run { fixture in
            let request = TaskRequest(function: "hang", deliveryMode: .atMostOnce, timeout: .seconds(10), uniqueId: "charge-3")
            let (hostB, _) = try await Self.hostDiesMidRun(fixture, request)
            #expect(await hostB.runDue() == 0)
            let record = try #require(try await hostB.task(uniqueId: "charge-3"))
            #expect(record.status == .failed && record.history.map(\.outcome) == [.lost])
            #expect(record.error == "The host running the task stopped before it finished (its lease ended).")
            #expect(record.leanEngineJSON["status"] == "failed")
            #expect(fixture.calls.calls.map(\.host) == ["host-a"])
        }
    }
}
