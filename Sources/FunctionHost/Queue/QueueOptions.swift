public import CloudQueue
public import Foundation

/// How this host takes part in the Cloud Queue and the timers (`HostConfiguration.queue`).
public struct QueueOptions: Sendable {
    /// Whether this host runs tasks and fires timers (`--no-queue` turns it off). Off, it still
    /// takes enqueues and serves the queue's and timers' routes: another host on the same
    /// PostgreSQL database runs them.
    public var runsTasks = true
    /// Concurrency, poll interval, the default and longest task timeout, and the queue's other
    /// bounds (`QueueSettings`' defaults: 2 tasks at once, 1 s, 60 s, 15 min).
    public var settings = QueueSettings()
    /// The time tasks and timers are due by; tests put a clock they move by hand here.
    public var clock: any QueueClock = SystemQueueClock()
    /// The time zone cron timers are read in when they name none (`--timers-timezone`; UTC).
    public var timersTimeZone = TimeZone(identifier: "UTC")!

    /// Hears the queue's events besides the host's metrics and log (a test waits on attempts
    /// with one).
    public var observer: (any QueueObserver)?

    /// The defaults.
    public init() {}
}
