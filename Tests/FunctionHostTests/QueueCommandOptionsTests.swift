import ArgumentParser
import CloudQueue
import Foundation
import FunctionHost
import Testing

@testable import functionhost

/// The Cloud Queue's and timers' options as `serve` reads them: each reaches the host's
/// configuration, the defaults stand without them, and a value out of range is refused before
/// the server starts.
@Suite struct QueueCommandOptionsTests {
    private static func configuration(_ arguments: [String]) throws -> HostConfiguration {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try QueueCommandOptions.parse(arguments).apply(to: &configuration)
        return configuration
    }

    @Test func eachOptionReachesTheConfiguration() throws {
        let queue = try Self.configuration([
            "--no-queue", "--queue-concurrency", "5", "--queue-poll-interval", "0.25", "--queue-timeout", "30",
            "--queue-max-timeout", "120", "--queue-lease-grace", "10", "--queue-max-queued", "500",
            "--timers-timezone", "Asia/Shanghai",
        ]).queue
        #expect(!queue.runsTasks)
        #expect(queue.settings.concurrency == 5 && queue.settings.pollInterval == .milliseconds(250))
        #expect(queue.settings.defaultTimeout == .seconds(30) && queue.settings.maxTimeout == .seconds(120))
        #expect(queue.settings.leaseGrace == .seconds(10) && queue.settings.maxQueued == 500)
        #expect(queue.timersTimeZone.identifier == "Asia/Shanghai")
    }

    @Test func withoutOptionsTheDefaultsStand() throws {
        let queue = try Self.configuration([]).queue
        let defaults = QueueSettings()
        #expect(queue.runsTasks && queue.timersTimeZone.secondsFromGMT() == 0)
        #expect(queue.settings.concurrency == defaults.concurrency && queue.settings.pollInterval == defaults.pollInterval)
        #expect(queue.settings.defaultTimeout == .seconds(60) && queue.settings.maxTimeout == .seconds(900))
        #expect(queue.settings.leaseGrace == .seconds(30) && queue.settings.maxQueued == 10_000)
    }

    @Test(arguments: [
        ["--queue-concurrency", "0"], ["--queue-concurrency", "65"], ["--queue-poll-interval", "0"],
        ["--queue-poll-interval", "nan"], ["--queue-timeout", "-1"], ["--queue-max-timeout", "inf"],
        ["--queue-lease-grace", "0"], ["--queue-max-queued", "0"], ["--timers-timezone", "Mars/Olympus"],
        ["--queue-timeout", "120", "--queue-max-timeout", "60"], ["--queue-concurrency", "many"],
    ])
    func aValueOutOfRangeIsRefused(arguments: [String]) {
        #expect(throws: (any Error).self, "\(arguments)") { try Self.configuration(arguments) }
    }
}
