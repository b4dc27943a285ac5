import CloudQueue
import DataAPI
import Foundation
import HTTPTypes
import JSON
import Logging
import TestSupport
import Testing

@testable import FunctionHost

/// A deploy bundle's `timers.json`: checked when deployed, applied to `_Timer` per environment
/// when its version becomes current there, an operator's timer of the same name left alone.
/// Real storage (SQLite or PostgreSQL), a manual clock.
@Suite struct DeployTimersTests {
    static func bundle(_ timers: JSONValue) -> [String: String] {
        ["cloud.js": "AV.Cloud.define('f', function () { return 1; });", DeployTimers.file: String(decoding: timers.jsonBytes, as: UTF8.self)]
    }

    static func run(_ body: (DeployTimers, TimerScheduler, ManualQueueClock) async throws -> Void) async throws {
        let store = try await QueueTestData()
        let clock = ManualQueueClock()
        let logger = Logger(label: "test.timers")
        let queue = CloudQueue(
            data: store.data, clock: clock, settings: QueueSettings(), invoker: { _ in (.success(.null), []) }, logger: logger)
        let scheduler = TimerScheduler(store: TimerStore(data: store.data, logger: logger), queue: queue, clock: clock, logger: logger)
        let timers = DeployTimers(scheduler: scheduler, settings: QueueSettings(), timeZone: .gmt, logger: logger)
        do {
            try await body(timers, scheduler, clock)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test func aBundlesTimersApplyPerEnvironmentAndAnOperatorsTimerWins() async throws {
        try await Self.run { timers, scheduler, clock in
            let first = Self.bundle([
                ["name": "nightly", "function": "f", "cron": "0 0 3 * * ?"],
                ["name": "ping", "function": "f", "every": 60, "environment": "staging"],
                ["name": "gone", "function": "f", "every": 300, "params": ["x": 1]],
            ])
            // Deployed to staging: its staging timer only.
            try await timers.apply(first, to: .staging)
            var stored = try await scheduler.timers()
            #expect(stored.map(\.name) == ["ping"] && stored.first?.source == .deploy && stored.first?.nextFireAt != nil)
            // Promoted: its production timers too.
            try await timers.apply(first, to: .production)
            stored = try await scheduler.timers()
            #expect(Set(stored.map(\.name)) == ["nightly", "ping", "gone"])
            #expect(stored.first { $0.name == "gone" }?.params == ["x": 1])

            // An operator changes `nightly` over the API: the next deploy doesn't undo it.
            try await scheduler.save(TimerDefinition(name: "nightly", function: "other", schedule: .every(seconds: 10)))
            let nextPing = try #require(stored.first { $0.name == "ping" }?.nextFireAt)
            clock.advance(by: .seconds(30))
            let second = Self.bundle([
                ["name": "nightly", "function": "f", "cron": "0 0 4 * * ?"],
                ["name": "ping", "function": "f", "every": 60, "environment": "staging"],
                ["name": "fresh", "function": "f", "every": 120],
            ])
            try await timers.apply(second, to: .production)
            stored = try await scheduler.timers()
            #expect(Set(stored.map(\.name)) == ["nightly", "ping", "fresh"], "the deploy's 'gone' is removed")
            let nightly = try #require(stored.first { $0.name == "nightly" })
            #expect(nightly.source == .api && nightly.function == "other")
            // Staging's timer wasn't touched by production's switch; unchanged, it keeps its schedule.
            try await timers.apply(second, to: .staging)
            #expect(try await scheduler.timers().first { $0.name == "ping" }?.nextFireAt == nextPing)

            // A version without timers.json (a rollback to one) removes the deploy's timers of
            // that environment, and never the operator's.
            try await timers.apply(["cloud.js": ""], to: .production)
            #expect(Set(try await scheduler.timers().map(\.name)) == ["nightly", "ping"])
        }
    }

    @Test func productionsDeployTakesATimerNameFromStagingsAndNotTheOtherWay() async throws {
        try await Self.run { timers, scheduler, _ in
            let staging = Self.bundle([["name": "nightly", "function": "f", "every": 3600, "environment": "staging"]])
            let production = Self.bundle([["name": "nightly", "function": "f", "cron": "0 0 4 * * ?"]])
            try await timers.apply(staging, to: .staging)
            try await timers.apply(production, to: .production)
            #expect(try await scheduler.timer(name: "nightly")?.environment == .production)
            // Staging's next deploy can't switch production's schedule off.
            try await timers.apply(staging, to: .staging)
            #expect(try await scheduler.timer(name: "nightly")?.environment == .production)
        }
    }

    @Test(arguments: [
        ("{", "JSON list"), (#"{"name": "a"}"#, "JSON list"),
        (#"[{"name": "a", "function": "f", "every": 60}, {"name": "a", "function": "f", "every": 5}]"#, "twice"),
        (#"[{"name": "a", "function": "f", "cron": "0 0 25 * * ?"}]"#, "timer 1"),
        (#"[{"name": "a", "function": "f", "every": 0}]"#, "timer 1"),
        (#"[{"name": "a", "function": "f"}]"#, "cron"),
        (#"[{"name": "a/b", "function": "f", "every": 60}]"#, "name"),
        (#"[{"name": "a", "function": "f", "every": 60, "user": "../_User"}]"#, "user"),
        (#"[{"name": "a", "function": "f", "every": 60, "environment": "test"}]"#, "environment"),
        (#"[{"name": "a", "function": "f", "every": 60, "secret": 1}]"#, "secret"),
        ("[" + Array(repeating: #"{"function": "f", "every": 60}"#, count: 101).joined(separator: ",") + "]", "at most 100"),
        ("[" + String(repeating: " ", count: 300_000) + "]", "KB"),
    ])
    func aBadTimersFileIsRefusedNamingWhatIsWrong(text: String, expected: String) {
        #expect {
            try DeployTimers.definitions(in: ["cloud.js": "", DeployTimers.file: text], timeZone: .gmt, settings: QueueSettings())
        } throws: { error in
            guard let error = error as? HostError else { return false }
            return error.status == .badRequest && error.code == 107 && error.message.contains(expected)
        }
    }

    @Test func aDeployWithBadTimersChangesNothingAndGoodTimersAreNotLoadedAsCode() async throws {
        try await DeployTests.run { api in
            let bad = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                ["environment": "staging", "files": ["cloud.js": "AV.Cloud.define('version', function () { return 'v2'; });", "timers.json": "[{}]"]])
            #expect(bad.status == .badRequest && bad["code"] == 107, "\(bad)")
            #expect(try await api.get("/1.1/engine/deploys", headers: Headers.master).results.count == 1)
            // A timers file anywhere but the root, or under another name, is no file of a bundle.
            let misplaced = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                ["environment": "staging", "files": ["cloud.js": "", "lib/timers.json": "[]"]])
            #expect(misplaced.status == .badRequest && misplaced["code"] == 107, "\(misplaced)")

            let good = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                [
                    "environment": "staging",
                    "files": [
                        "cloud.js": "AV.Cloud.define('version', function () { return 'v2'; });",
                        "timers.json": #"[{"name": "nightly", "function": "version", "cron": "0 0 3 * * ?"}]"#,
                    ],
                ])
            #expect(good.status == .created && good["files"] == ["cloud.js", "timers.json"], "\(good)")
            #expect(try await DeployTests.version(api, headers: Headers.staging) == "v2")
        }
    }
}
