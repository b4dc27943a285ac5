/// How a `PostgresChangeFeed` keeps and follows its change table.
public struct PostgresChangeFeedSettings: Sendable {
    /// The most changes the table keeps; older ones are trimmed (100 000 by default).
    public var retainedChanges: Int = 100_000
    /// How long a change is kept (10 minutes by default): how long a host may be cut off from the
    /// database and still catch up on everything it missed.
    public var retainedAge: Duration = .seconds(600)
    /// How often each host trims the table (every minute by default).
    public var trimInterval: Duration = .seconds(60)
    /// The most changes one read of the table returns (each read loops until it is caught up).
    public var batchSize: Int = 256
    /// The most bytes of changes one read returns past its first change (8 MiB by default).
    public var batchBytes: Int = 8 << 20
    /// How long each of the feed's statements may run before the server cancels it.
    public var statementBudget: Duration = .seconds(5)
    /// The connections the feed's publishers share (the follower has one more of its own).
    public var poolSize: Int = 4
    /// How long a host's record of the classes its subscriptions watch lasts unless renewed (30 s
    /// by default; renewed at a third of it): a host that stopped renewing no longer makes the
    /// others announce its classes.
    public var watchLease: Duration = .seconds(30)
    /// How long a subscribe to a class no host watched waits at most for every live host to
    /// load it (5 s by default); past it the subscribe returns and the laggard is logged.
    public var watchAcknowledgement: Duration = .seconds(5)
    /// Waits before the follower's `attempt`-th reconnection in a row (1, 2, ...); throwing
    /// stops the follower. By default 100 ms doubled at each attempt, at most 10 s.
    public var backOff: @Sendable (_ attempt: Int) async throws -> Void = { attempt in
        let milliseconds = min(10_000, 100 << min(attempt - 1, 7))
        try await Task.sleep(for: .milliseconds(milliseconds))
    }

    /// The default settings.
    public init() {}
}
