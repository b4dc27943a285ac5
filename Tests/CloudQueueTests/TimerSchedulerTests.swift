import CloudQueue
import DataAPI
import Foundation
import JSON
import Logging
import TestSupport
import Testing

/// Timers on the manual clock: firings at their schedule's times, once across two hosts, once
/// after a long pause, none once disabled or removed, and the last firing's task readable.
@Suite struct TimerSchedulerTests {
    /// 2026-01-01T00:00:00Z, where the fixture's clock starts.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    private func scheduler(_ fixture: QueueFixture, host: String = "host-a") async throws -> (TimerScheduler, CloudQueue) {
        let data = try await fixture.data()
        let queue = try await fixture.queue(host: host, data: data)
        let logger = Logger(label: "test.timers")
        return (TimerScheduler(store: TimerStore(data: data, logger: logger), queue: queue, clock: fixture.clock, logger: logger), queue)
    }

    private func at(_ seconds: Int) -> Date { Self.start.addingTimeInterval(TimeInterval(seconds)) }

    private func firingId(_ name: String, _ seconds: Int) -> String {
        "timer-\(name)-\(Int(at(seconds).timeIntervalSince1970))"
    }

    @Test func aCronTimerFiresAtItsTimesAndItsTasksRun() async throws {
        try await QueueFixture.run { fixture in
            let (timers, queue) = try await scheduler(fixture)
            let saved = try await timers.save(
                TimerDefinition(name: "tick", function: "echo", schedule: .cron(try CronSchedule("*/10 * * * * ?")), params: ["n": 1]))
            #expect(saved.nextFireAt == at(10))
            fixture.clock.advance(by: .seconds(9))
            #expect(await timers.fireDue() == 0)
            fixture.clock.advance(by: .seconds(1))
            #expect(await timers.fireDue() == 1)
            #expect(await timers.fireDue() == 0)
            let task = try #require(try await queue.task(uniqueId: firingId("tick", 10)))
            #expect(task.function == "echo" && task.params == ["n": 1] && task.origin == .timer("tick"))
            // As the master: no user.
            #expect(task.userId == nil && task.environment == .production)
            #expect(await queue.runDue() == 1)
            fixture.clock.advance(by: .seconds(10))
            #expect(await timers.fireDue() == 1)
            #expect(await queue.runDue() == 1)
            #expect(fixture.calls.order == [firingId("tick", 10), firingId("tick", 20)])

            // The last run's record: the last firing's task, with its outcome.
            let timer = try #require(try await timers.timer(name: "tick"))
            #expect(timer.lastFiredAt == at(20) && timer.lastTaskId == firingId("tick", 20) && timer.nextFireAt == at(30))
            let last = try #require(try await timers.lastRun(name: "tick"))
            #expect(last.status == .success && last.result == ["n": 1] && last.history.count == 1)
            #expect(timer.json["lastTaskId"] == .string(firingId("tick", 20)))
            #expect(timer.json["nextFireAt"] == "2026-01-01T00:00:30.000Z")
        }
    }

    @Test func aFiringRunsAheadOfABacklogOfTasks() async throws {
        try await QueueFixture.run { fixture in
            let (timers, queue) = try await scheduler(fixture)
            for index in 0..<4 {
                _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "backlog\(index)"))
            }
            // The lowest priority a task may ask for still goes after a firing.
            _ = try await queue.enqueue(TaskRequest(function: "echo", priority: -TaskRequest.maxPriority, uniqueId: "urgent"))
            _ = try await timers.save(TimerDefinition(name: "tick", function: "echo", schedule: try .interval(seconds: 10)))
            fixture.clock.advance(by: .seconds(10))
            #expect(await timers.fireDue() == 1)
            // The queue's two slots: the firing, and the backlog's first (an urgent one).
            #expect(await queue.runDue() == 2)
            #expect(Set(fixture.calls.order) == [firingId("tick", 10), "urgent"])
        }
    }

    @Test func aFullQueueStillTakesAFiring() async throws {
        try await QueueFixture.run { fixture in
            let data = try await fixture.data()
            let queue = try await fixture.queue(data: data) { $0.maxQueued = 2 }
            let logger = Logger(label: "test.timers")
            let timers = TimerScheduler(store: TimerStore(data: data, logger: logger), queue: queue, clock: fixture.clock, logger: logger)
            for index in 0..<2 { _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "full\(index)")) }
            await expectQueueError(.tooMany) { _ = try await queue.enqueue(TaskRequest(function: "echo", uniqueId: "more")) }
            _ = try await timers.save(TimerDefinition(name: "tick", function: "echo", schedule: try .interval(seconds: 10)))
            fixture.clock.advance(by: .seconds(10))
            #expect(await timers.fireDue() == 1)
            #expect(try await queue.task(uniqueId: firingId("tick", 10))?.status == .queued)
        }
    }

    @Test func anIntervalTimerFiresEveryNSecondsInItsZone() async throws {
        try await QueueFixture.run { fixture in
            let (timers, queue) = try await scheduler(fixture)
            fixture.clock.advance(by: .seconds(5))
            let saved = try await timers.save(
                TimerDefinition(name: "ping", function: "echo", schedule: try .interval(seconds: 60), environment: .staging))
            #expect(saved.nextFireAt == at(60))
            for minute in 1...3 {
                fixture.clock.set(at(60 * minute))
                #expect(await timers.fireDue() == 1)
            }
            let tasks = try await queue.tasks(status: .queued, limit: 10, after: nil)
            #expect(Set(tasks.map(\.uniqueId)) == [firingId("ping", 60), firingId("ping", 120), firingId("ping", 180)])
            #expect(tasks.allSatisfy { $0.environment == .staging })

            // A cron timer in Shanghai's time: 08:00 there is midnight UTC.
            let morning = try await timers.save(
                TimerDefinition(
                    name: "morning", function: "echo", schedule: .cron(try CronSchedule("0 0 8 * * ?")),
                    timeZone: TimeZone(identifier: "Asia/Shanghai")!))
            #expect(morning.nextFireAt == at(86_400))
        }
    }

    @Test func twoHostsEnqueueEachFiringOnce() async throws {
        try await QueueFixture.run { fixture in
            let (hostA, queueA) = try await scheduler(fixture, host: "host-a")
            let (hostB, _) = try await scheduler(fixture, host: "host-b")
            try await hostA.save(TimerDefinition(name: "shared", function: "echo", schedule: try .interval(seconds: 5)))
            try await hostB.save(TimerDefinition(name: "other", function: "echo", schedule: .cron(try CronSchedule("*/5 * * * * ?"))))
            var enqueued = 0
            for step in 1...8 {
                fixture.clock.set(at(5 * step))
                async let a = hostA.fireDue()
                async let b = hostB.fireDue()
                enqueued += await a + b
            }
            // Two timers, eight fire times each: sixteen tasks, each enqueued by one host.
            #expect(enqueued == 16)
            let ids = try await queueA.tasks(status: nil, limit: 100, after: nil).map(\.uniqueId)
            let expected = (1...8).flatMap { [firingId("shared", 5 * $0), firingId("other", 5 * $0)] }
            #expect(ids.sorted() == expected.sorted())
            // Each timer moved on once per fire time.
            #expect(try await hostB.timer(name: "shared")?.nextFireAt == at(45))
        }
    }

    @Test func aTimerThatMissedManyTimesFiresOnce() async throws {
        try await QueueFixture.run { fixture in
            let (timers, queue) = try await scheduler(fixture)
            try await timers.save(TimerDefinition(name: "often", function: "echo", schedule: try .interval(seconds: 10)))
            // Every host was down for an hour: 360 fire times passed.
            fixture.clock.set(at(3_600 + 3))
            #expect(await timers.fireDue() == 1)
            #expect(await timers.fireDue() == 0)
            #expect(try await queue.tasks(status: nil, limit: 100, after: nil).map(\.uniqueId) == [firingId("often", 10)])
            // Next due at its first time after now, not at the missed ones.
            #expect(try await timers.timer(name: "often")?.nextFireAt == at(3_610))
            #expect(try await timers.timer(name: "often")?.lastFiredAt == at(10))
        }
    }

    @Test func aDisabledOrRemovedTimerStops() async throws {
        try await QueueFixture.run { fixture in
            let (timers, queue) = try await scheduler(fixture)
            var timer = TimerDefinition(name: "pausable", function: "echo", schedule: try .interval(seconds: 10))
            try await timers.save(timer)
            fixture.clock.set(at(10))
            #expect(await timers.fireDue() == 1)
            timer.enabled = false
            let disabled = try await timers.save(timer)
            #expect(disabled.nextFireAt == nil && disabled.lastTaskId == firingId("pausable", 10))
            fixture.clock.set(at(100))
            #expect(await timers.fireDue() == 0)
            // Enabled again: from now on, not the missed times.
            timer.enabled = true
            #expect(try await timers.save(timer).nextFireAt == at(110))
            try await timers.remove(name: "pausable")
            fixture.clock.set(at(200))
            #expect(await timers.fireDue() == 0)
            #expect(try await queue.tasks(status: nil, limit: 100, after: nil).count == 1)
            #expect(try await timers.timer(name: "pausable") == nil)
            await expectQueueError(.notFound, code: 404) { try await timers.remove(name: "pausable") }
            await expectQueueError(.notFound) { _ = try await timers.runNow(name: "pausable") }
            await expectQueueError(.notFound) { _ = try await timers.lastRun(name: "pausable") }
        }
    }

    @Test func runNowFiresOutOfScheduleAndIsTheLastRun() async throws {
        try await QueueFixture.run { fixture in
            let (timers, queue) = try await scheduler(fixture)
            let before = try await timers.save(
                TimerDefinition(
                    name: "report", function: "echo", schedule: .cron(try CronSchedule("0 0 3 * * ?")), userId: "user123",
                    enabled: false))
            let record = try await timers.runNow(name: "report")
            #expect(record.origin == .timer("report") && record.userId == "user123")
            #expect(record.uniqueId.hasPrefix("timer-report-run-"))
            #expect(await queue.runDue() == 1)
            let after = try #require(try await timers.timer(name: "report"))
            #expect(after.lastTaskId == record.uniqueId && after.nextFireAt == before.nextFireAt && !after.enabled)
            #expect(try await timers.lastRun(name: "report")?.status == .success)
        }
    }

    @Test func theSchedulerLoopFiresOnTheClock() async throws {
        try await QueueFixture.run { fixture in
            let (timers, queue) = try await scheduler(fixture)
            try await timers.save(TimerDefinition(name: "loop", function: "echo", schedule: try .interval(seconds: 3)))
            let loop = Task { await timers.run() }
            // Asleep until its next fire time (3 s) or the poll (1 s), whichever is first.
            #expect(await fixture.clock.waitForSleepers(1))
            for second in 1...6 {
                fixture.clock.set(at(second))
                #expect(await fixture.clock.waitForSleepers(1))
            }
            loop.cancel()
            await loop.value
            let ids = try await queue.tasks(status: nil, limit: 100, after: nil).map(\.uniqueId)
            #expect(ids.sorted() == [firingId("loop", 3), firingId("loop", 6)].sorted())
        }
    }

    @Test func aDeployDoesNotReplaceAnOperatorsTimer() async throws {
        try await QueueFixture.run { fixture in
            let (timers, _) = try await scheduler(fixture)
            try await timers.save(TimerDefinition(name: "nightly", function: "echo", schedule: try .interval(seconds: 60)))
            let kept = try await timers.save(
                TimerDefinition(name: "nightly", function: "other", schedule: try .interval(seconds: 5), source: .deploy))
            #expect(kept.function == "echo" && kept.source == .api)
            try await timers.save(TimerDefinition(name: "fromDeploy", function: "a", schedule: try .interval(seconds: 5), source: .deploy))
            let replaced = try await timers.save(
                TimerDefinition(name: "fromDeploy", function: "b", schedule: try .interval(seconds: 5), source: .deploy))
            #expect(replaced.function == "b")
            #expect(try await timers.timers().map(\.name) == ["fromDeploy", "nightly"])
        }
    }

    @Test func timersOutOfBoundsAreRefusedAndNothingIsStored() async throws {
        try await QueueFixture.run { fixture in
            let (timers, _) = try await scheduler(fixture)
            let every: TimerSchedule = .every(seconds: 60)
            let bad: [(TimerDefinition, String)] = [
                (TimerDefinition(name: "", function: "echo", schedule: every), "name"),
                (TimerDefinition(name: "a/b", function: "echo", schedule: every), "name"),
                (TimerDefinition(name: "é", function: "echo", schedule: every), "name"),
                (TimerDefinition(name: String(repeating: "n", count: 65), function: "echo", schedule: every), "name"),
                (TimerDefinition(name: "t", function: "no such", schedule: every), "function"),
                (TimerDefinition(name: "t", function: "echo", schedule: every, params: [1]), "params"),
                (TimerDefinition(name: "t", function: "echo", schedule: every, params: ["x": .string(String(repeating: "x", count: 40_000))]), "params"),
                (TimerDefinition(name: "t", function: "echo", schedule: every, userId: "../_User"), "user"),
                (TimerDefinition(name: "t", function: "echo", schedule: .every(seconds: 0)), "interval"),
                (TimerDefinition(name: "t", function: "echo", schedule: .cron(try CronSchedule("0 0 0 1 1 ? 2020"))), "no time left"),
            ]
            for (timer, reason) in bad {
                let error = await expectQueueError(.badRequest, code: 1) { try await timers.save(timer) }
                #expect(error?.message.contains(reason) == true, "\(error?.message ?? "") lacks \(reason)")
            }
            await expectQueueError(.badRequest) { _ = try await timers.timer(name: "../x") }
            #expect(try await timers.timers().isEmpty)
        }
    }

    @Test func atMostAThousandTimers() async throws {
        try await QueueFixture.run { fixture in
            let data = try await fixture.data()
            let store = TimerStore(data: data, logger: Logger(label: "test.timers"))
            for index in 0..<TimerDefinition.maxTimers {
                try await store.put(TimerDefinition(name: "t\(index)", function: "echo", schedule: .every(seconds: 60)))
            }
            let error = await expectQueueError(.tooMany, code: 429) {
                try await store.put(TimerDefinition(name: "one-more", function: "echo", schedule: .every(seconds: 60)))
            }
            #expect(error?.message == "Too many timers: an app may have at most 1000.")
            // Replacing one is not adding one.
            try await store.put(TimerDefinition(name: "t0", function: "other", schedule: .every(seconds: 60)))
            #expect(try await store.get("t0")?.function == "other")
            #expect(try await store.all().count == TimerDefinition.maxTimers)
        }
    }

    @Test func timersAddedTogetherStopAtTheCap() async throws {
        try await QueueFixture.run { fixture in
            let data = try await fixture.data()
            let store = TimerStore(data: data, logger: Logger(label: "test.timers"))
            for index in 0..<(TimerDefinition.maxTimers - 3) {
                try await store.put(TimerDefinition(name: "t\(index)", function: "echo", schedule: .every(seconds: 60)))
            }
            // Twelve new timers at once for the last three places: three are stored.
            let stored = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        (try? await store.put(TimerDefinition(name: "race\(index)", function: "echo", schedule: .every(seconds: 60)))) != nil
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(stored == 3)
            #expect(try await store.all().count == TimerDefinition.maxTimers)
        }
    }

    @Test func theJSONBodyOfATimer() throws {
        let timer = try TimerDefinition(
            body: [
                "function": "cleanup", "cron": "0 0 3 * * ?", "params": ["days": 30], "environment": "staging", "user": "u1",
                "enabled": false, "timeZone": "Asia/Shanghai",
            ], name: "cleanup")
        #expect(timer.name == "cleanup" && timer.function == "cleanup" && timer.environment == .staging && timer.userId == "u1")
        #expect(timer.schedule == .cron(try CronSchedule("0 0 3 * * ?")) && !timer.enabled && timer.timeZone.identifier == "Asia/Shanghai")
        #expect(timer.json["cron"] == "0 0 3 * * ?" && timer.json["source"] == "api" && timer.json["nextFireAt"] == .null)
        #expect(try TimerDefinition(body: ["name": "p", "function": "f", "every": 30]).schedule == .every(seconds: 30))
        let bad: [(JSONValue, String?, String)] = [
            ([1], nil, "A timer is a JSON object."),
            (["function": "f", "cron": "* * * * * ?"], nil, "A timer needs a name."),
            (["name": "a", "function": "f", "cron": "* * * * * ?"], "b", "The timer's name in the body ('a') differs from the one in the URL."),
            (["name": "a", "cron": "* * * * * ?"], nil, "A timer needs a function."),
            (["name": "a", "function": "f"], nil, "A timer needs either cron (a Quartz expression) or every (seconds)."),
            (["name": "a", "function": "f", "cron": "* * * * * ?", "every": 5], nil, "A timer needs either cron (a Quartz expression) or every (seconds)."),
            (["name": "a", "function": "f", "every": 1.5], nil, "A timer's every is a whole number of seconds."),
            (["name": "a", "function": "f", "every": 0], nil, "An interval is a whole number of seconds from 1 to 31622400."),
            (["name": "a", "function": "f", "cron": "0 0 0 30 2 ?"], nil,
             "Invalid cron expression: no date matches it (such as February 30th), so it would never fire"),
            (["name": "a", "function": 5, "every": 5], nil, "A timer's function is a string."),
            (["name": "a", "function": "f", "every": 5, "environment": "dev"], nil, "A timer's environment is production or staging."),
            (["name": "a", "function": "f", "every": 5, "enabled": "yes"], nil, "A timer's enabled is true or false."),
            (["name": "a", "function": "f", "every": 5, "timeZone": "Mars/Olympus"], nil, "A timer's timeZone is a zone name such as Asia/Shanghai or UTC."),
            (["name": "a", "function": "f", "every": 5, "runAs": "admin"], nil,
             "A timer has no field 'runAs'; it takes cron, enabled, environment, every, function, name, params, timeZone, user."),
        ]
        for (body, name, message) in bad {
            #expect(throws: CloudQueueError.badRequest(message)) { try TimerDefinition(body: body, name: name) }
        }
    }
}

/// Two hosts setting the same new timer at once: one record, the later write's.
@Suite struct TimerStoreRaceTests {
    @Test func twoHostsAddingOneTimerAtOnceKeepOneRecord() async throws {
        try await QueueFixture.run { fixture in
            let logger = Logger(label: "test.timers")
            let storeA = TimerStore(data: try await fixture.data(), logger: logger)
            let storeB = TimerStore(data: try await fixture.data(), logger: logger)
            for round in 0..<5 {
                let name = "race-\(round)"
                async let a = storeA.put(TimerDefinition(name: name, function: "fromA", schedule: .every(seconds: 60)))
                async let b = storeB.put(TimerDefinition(name: name, function: "fromB", schedule: .every(seconds: 60)))
                _ = try await (a, b)
                let function = try #require(try await storeA.get(name)?.function)
                #expect(["fromA", "fromB"].contains(function))
            }
            #expect(try await storeB.all().count == 5)
        }
    }
}
