import Foundation

/// How one host runs the queue, and the bounds every task is held to. The defaults suit one
/// app on a small server; the host's command line sets them.
public struct QueueSettings: Sendable {
    /// Who this host is in the task records (`leaseOwner`, each attempt's `host`): random per
    /// process, so a restarted host doesn't take its dead self's leases for its own.
    public var hostID: String = "host-" + UUID().uuidString.lowercased().prefix(8)
    /// How often a host looks for work it wasn't told about (another host's enqueue, a lease
    /// that expired): the most a task waits past its due time while the host is idle.
    public var pollInterval: Duration = .seconds(1)
    /// How many tasks one host runs at once.
    public var concurrency = 2
    /// A task's time limit when it names none (LeanEngine's is 15 s, a function call's limit).
    public var defaultTimeout: Duration = .seconds(60)
    /// The longest time limit a task may ask for.
    public var maxTimeout: Duration = .seconds(15 * 60)
    /// How long past its time limit an attempt may run before its host records it as timed out;
    /// twice this past the limit, its lease expires and any host takes the task back.
    public var leaseGrace: Duration = .seconds(30)
    /// How many tasks may wait or run at once; enqueueing more is refused (429).
    public var maxQueued = 10_000
    /// How many of those may be staging's: a tenth, so staging code (which any client may call)
    /// can't fill production's queue.
    public var stagingMaxQueued: Int { max(1, maxQueued / 10) }
    /// How many finished tasks' records (results kept, dead letters) are kept at most; past it
    /// the oldest are removed before their time.
    public var maxKept = 100_000
    /// The largest `params`, in bytes of JSON. A task's record holds its params, result and
    /// attempts' logs in one object, which the database bounds at 128 KB.
    public var maxParamsBytes = 32 * 1024
    /// The largest result kept, in bytes of JSON; a larger one is dropped and the attempt says so.
    public var maxResultBytes = 32 * 1024
    /// How long a task that ran out of attempts (the dead letter) is kept for the master key to
    /// list and retry.
    public var deadLetterKeep: Duration = .seconds(7 * 24 * 3600)
    /// How many attempts a task's record keeps (the latest ones).
    public var historyLimit = 10
    /// How many log lines, and bytes of them, one attempt keeps.
    public var maxLogLines = 50
    /// See `maxLogLines`.
    public var maxLogBytes = 3 * 1024
    /// How many times a task whose host died mid-attempt is run again before it is failed: a
    /// task that kills every host it runs on must not take them all down forever.
    public var maxLostAttempts = 3

    /// The defaults.
    public init() {}
}

extension Duration {
    /// The duration in whole milliseconds (rounded down).
    var milliseconds: Int64 {
        let parts = components
        return parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
    }
}

extension Date {
    /// The time in milliseconds since 1970, as stored.
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The time `milliseconds` after 1970.
    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// This time plus a duration.
    func adding(_ duration: Duration) -> Date {
        Date(milliseconds: milliseconds + duration.milliseconds)
    }
}
