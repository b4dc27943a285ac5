import CloudQueue
import DataAPI
import Foundation
import FunctionHost
import HTTPTypes
import JSON
import TestSupport
import Testing

/// Timers over REST: managed with the master key only, fired now by hand into the queue (the
/// firing runs its function), refused with clear errors for bad bodies and unknown names.
@Suite struct TimerHTTPTests {
    static let timers = "/1.1/engine/timers"

    @Test func theMasterKeySetsListsRunsAndRemovesATimer() async throws {
        try await CloudQueueHTTPTests.run { api, fixture in
            let created = try await api.post(
                Self.timers, headers: Headers.master, ["name": "nightly", "function": "double", "every": 3600, "params": ["n": 21]])
            #expect(created.status == .created, "\(created)")
            #expect(created["nextFireAt"]?.stringValue != nil, "\(created)")
            #expect(created["source"] == "api")
            let list = try await api.get(Self.timers, headers: Headers.master)
            #expect(list.results.map { $0["name"] } == ["nightly"], "\(list)")
            let run = try await api.post(Self.timers + "/nightly/run", headers: Headers.master, [:])
            #expect(run.status == .ok, "\(run)")
            let id = try #require(run["uniqueId"]?.stringValue)
            #expect(await fixture.waitForAttempts(id, count: 1, step: .milliseconds(1)).map(\.outcome) == [.success])
            let timer = try await api.get(Self.timers + "/nightly", headers: Headers.master)
            #expect(timer["lastRun"]?["result"] == 42, "\(timer)")
            let changed = try await api.put(Self.timers + "/nightly", headers: Headers.master, ["function": "double", "cron": "0 0 3 * * ?"])
            #expect(changed["cron"] == "0 0 3 * * ?", "\(changed)")
            #expect(try await api.delete(Self.timers + "/nightly", headers: Headers.master).status == .ok)
            expectError(try await api.get(Self.timers + "/nightly", headers: Headers.master), code: 404, status: .notFound)
            let metrics = try await api.get("/metrics", headers: Headers.master)
            #expect(metrics.text.contains("functionhost_timer_firings_total"), "\(metrics.text)")
        }
    }

    @Test func withoutTheMasterKeyTimersAreRefusedAndBadBodiesAnsweredClearly() async throws {
        try await CloudQueueHTTPTests.run { api, _ in
            let (_, session) = try await FileFixture.signUp(api, "eve")
            for headers in [Headers.client, Headers.none, session, CloudQueueAttackTests.hook] {
                expectError(try await api.get(Self.timers, headers: headers), code: 401, status: .unauthorized)
                expectError(
                    try await api.post(Self.timers, headers: headers, ["name": "x", "function": "double", "every": 60]), code: 401,
                    status: .unauthorized)
                expectError(try await api.post(Self.timers + "/x/run", headers: headers, [:]), code: 401, status: .unauthorized)
                expectError(try await api.delete(Self.timers + "/x", headers: headers), code: 401, status: .unauthorized)
                expectError(try await api.put(Self.timers + "/x", headers: headers, ["function": "double", "every": 60]), code: 401, status: .unauthorized)
            }
            let refused: [JSONValue] = [
                [:],
                ["name": "x", "function": "double"],
                ["name": "x", "function": "double", "cron": "not a cron"],
                ["name": "x", "function": "double", "cron": "0 0 0 30 2 ?"],
                ["name": "x", "function": "double", "every": -5],
                ["name": "bad/name", "function": "double", "every": 60],
                ["name": .string(String(repeating: "n", count: 65)), "function": "double", "every": 60],
                ["name": "x", "function": "double", "every": 60, "timeZone": "Mars/Olympus"],
                ["name": "x", "function": "double", "every": 60, "surprise": true],
            ]
            for body in refused {
                expectError(try await api.post(Self.timers, headers: Headers.master, body), code: 1, status: .badRequest)
            }
            expectError(try await api.send(.post, Self.timers, headers: Headers.master, body: "{"), code: 107, status: .badRequest)
            expectError(try await api.post(Self.timers + "/ghost/run", headers: Headers.master, [:]), code: 404, status: .notFound)
            expectError(try await api.delete(Self.timers + "/ghost", headers: Headers.master), code: 404, status: .notFound)
            #expect(try await api.get(Self.timers, headers: Headers.master).results.isEmpty)
        }
    }

    /// A timer set over REST fires on its schedule as the queue's clock reaches it, and its
    /// firing runs the function.
    @Test func aTimerFiresOnItsScheduleIntoTheQueue() async throws {
        try await CloudQueueHTTPTests.run { api, fixture in
            let start = Int64(fixture.clock.now().timeIntervalSince1970)
            let created = try await api.post(
                Self.timers, headers: Headers.master, ["name": "tick", "function": "double", "every": 60, "params": ["n": 1]])
            #expect(created.status == .created, "\(created)")
            let firing = "timer-tick-\(start + 60)"
            #expect(await fixture.waitForAttempts(firing, count: 1).map(\.outcome) == [.success])
            #expect(fixture.clock.now().timeIntervalSince1970 >= Double(start + 60))
            // A firing's id follows from the timer's name and schedule: only the master key
            // reads it; the app key is told there is no such task, and can't take the id first.
            let asClient = try await api.get("/1.1/engine/cloud-queue/tasks/" + firing)
            #expect(asClient.status == .notFound, "\(asClient)")
            let asMaster = try await api.get("/1.1/engine/cloud-queue/tasks/" + firing, headers: Headers.master)
            #expect(asMaster.status == .ok && asMaster["status"] == "success", "\(asMaster)")
            let squatted = try await api.post(
                "/1.1/engine/cloud-queue/tasks", headers: Headers.master, ["function": "double", "uniqueId": .string("timer-tick-\(start + 600)")])
            #expect(squatted.status == .badRequest && squatted["code"] == 1, "\(squatted)")
            let timer = try await api.get(Self.timers + "/tick", headers: Headers.master)
            // Its latest firing (the clock may have reached the next one meanwhile).
            #expect(timer["lastRun"]?["uniqueId"]?.stringValue?.hasPrefix("timer-tick-") == true, "\(timer)")
        }
    }
}
