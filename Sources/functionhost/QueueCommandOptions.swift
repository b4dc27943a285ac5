import ArgumentParser
import CloudQueue
import Foundation
import FunctionHost

/// The options of `serve` about the Cloud Queue and timers: whether this host runs tasks, how
/// many at once, how soon it sees another host's enqueue, a task's default and longest time
/// limit, the lease a dead host's task waits out, and the zone cron timers are read in. Every one
/// has a default (`QueueSettings`, `QueueOptions`).
struct QueueCommandOptions: ParsableArguments {
    @Flag(
        name: .customLong("queue"), inversion: .prefixedNo,
        help: "Run the Cloud Queue's tasks and fire timers on this host (default: on). Off, the host still takes enqueues and serves the routes; another host on the same PostgreSQL runs them.")
    var runsTasks = true

    @Option(
        name: .customLong("queue-concurrency"),
        help: ArgumentHelp("Tasks this host runs at once (default: 2).", valueName: "count"))
    var concurrency: Int?

    @Option(
        name: .customLong("queue-poll-interval"),
        help: ArgumentHelp(
            "Seconds between looks for tasks other hosts enqueued; this host's own enqueues wake it at once (default: 1).",
            valueName: "seconds"))
    var pollInterval: Double?

    @Option(
        name: .customLong("queue-timeout"),
        help: ArgumentHelp("A task's time limit when it names none (default: 60).", valueName: "seconds"))
    var defaultTimeout: Double?

    @Option(
        name: .customLong("queue-max-timeout"),
        help: ArgumentHelp("The longest time limit a task may ask for (default: 900).", valueName: "seconds"))
    var maxTimeout: Double?

    @Option(
        name: .customLong("queue-lease-grace"),
        help: ArgumentHelp(
            "Seconds past a task's time limit before its host gives it up, and twice that before another host takes it back (default: 30).",
            valueName: "seconds"))
    var leaseGrace: Double?

    @Option(
        name: .customLong("queue-max-queued"),
        help: ArgumentHelp("Tasks waiting or running at once; one more enqueue is refused with 429 (default: 10000).", valueName: "count"))
    var maxQueued: Int?

    @Option(
        name: .customLong("timers-timezone"),
        help: ArgumentHelp(
            "The zone cron timers are read in when they name none, e.g. Asia/Shanghai for LeanCloud CN's times (default: UTC).",
            valueName: "zone"))
    var timersTimeZone: String?

    /// Refuses a value out of range before the server starts.
    func validate() throws {
        var configuration = HostConfiguration(dataDirectory: "", keys: AppKeys(appId: "", appKey: "", masterKey: "", hookKey: ""))
        try apply(to: &configuration)
    }

    /// Applies the options to a configuration.
    func apply(to configuration: inout HostConfiguration) throws {
        var queue = configuration.queue
        queue.runsTasks = runsTasks
        if let concurrency {
            guard (1...64).contains(concurrency) else { throw ValidationError("--queue-concurrency takes 1 to 64.") }
            queue.settings.concurrency = concurrency
        }
        if let maxQueued {
            guard (1...1_000_000).contains(maxQueued) else { throw ValidationError("--queue-max-queued takes 1 to 1000000.") }
            queue.settings.maxQueued = maxQueued
        }
        let durations: [(Double?, String, ClosedRange<Double>, WritableKeyPath<QueueSettings, Duration>)] = [
            (pollInterval, "--queue-poll-interval", 0.05...60, \.pollInterval),
            (defaultTimeout, "--queue-timeout", 1...86_400, \.defaultTimeout),
            (maxTimeout, "--queue-max-timeout", 1...86_400, \.maxTimeout),
            (leaseGrace, "--queue-lease-grace", 1...3_600, \.leaseGrace),
        ]
        for case (let seconds?, let option, let range, let path) in durations {
            guard seconds.isFinite, range.contains(seconds) else {
                throw ValidationError("\(option) takes seconds from \(Self.text(range.lowerBound)) to \(Self.text(range.upperBound)).")
            }
            queue.settings[keyPath: path] = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        // A default past the longest would make every task that names no limit ask for too much.
        guard queue.settings.defaultTimeout <= queue.settings.maxTimeout else {
            throw ValidationError("--queue-timeout must not be longer than --queue-max-timeout.")
        }
        if let timersTimeZone {
            guard let zone = TimeZone(identifier: timersTimeZone) else {
                throw ValidationError("--timers-timezone: no time zone named '\(timersTimeZone)'.")
            }
            queue.timersTimeZone = zone
        }
        configuration.queue = queue
    }

    /// A bound as written on the command line: `60`, `0.05`.
    private static func text(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
