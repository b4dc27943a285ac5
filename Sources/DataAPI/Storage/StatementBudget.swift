/// How long one database operation may run before the engine stops it and the request is
/// answered 124 ("Request timeout").
///
/// Without it, one expensive query (a `$in` of thousands of values over a large class) held a
/// database connection for seconds, and a few of them at once held them all. SQLite checks the
/// budget from its progress handler, PostgreSQL enforces it as `statement_timeout`.
public struct StatementBudget: Sendable, Hashable {
    /// The wall-clock time an operation may take (5 s by default).
    public var time: Duration
    /// The most SQLite virtual-machine instructions an operation may execute; nil for no limit
    /// but `time`. A count, unlike a time, does not depend on the machine's speed: what a test
    /// sets to make a given query too expensive, and what an operator sets for one answer on
    /// every host. PostgreSQL has no such counter and ignores it.
    public var sqliteInstructions: Int?

    /// A budget of `time`, and of `sqliteInstructions` on SQLite when given.
    public init(time: Duration = .seconds(5), sqliteInstructions: Int? = nil) {
        self.time = time
        self.sqliteInstructions = sqliteInstructions
    }

    /// The budget of tools that work on the data without serving it (`functionhost import`,
    /// `indexes`): no client waits behind them, and a 1 000-row import batch on a slow disk must
    /// not fail at a request's 5 s.
    public static let offline = StatementBudget(time: .seconds(86_400))

    /// What an operation past its budget answers.
    public static let exceeded = DataAPIError(
        .requestTimeout, "The query took too long and was stopped: narrow its conditions or add a limit.")

    /// `time` in whole milliseconds, at least 1 (PostgreSQL reads 0 as no timeout at all).
    var milliseconds: Int64 {
        max(1, time.components.seconds * 1000 + time.components.attoseconds / 1_000_000_000_000_000)
    }
}
