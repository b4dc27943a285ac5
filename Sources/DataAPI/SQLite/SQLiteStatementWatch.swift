internal import GRDB
internal import GRDBSQLite

/// Holds SQLite statements to a `StatementBudget`: a progress handler, called every
/// `interval` virtual-machine instructions, interrupts the statement once the deadline has
/// passed or the instruction count is spent (SQLite then fails it with SQLITE_INTERRUPT).
///
/// One watch covers one operation on one connection, on that connection's thread only.
final class SQLiteStatementWatch {
    /// Instructions between two checks: often enough to stop within microseconds of the
    /// deadline, rarely enough that reading the clock costs nothing measurable.
    static let interval: Int32 = 1000

    private let deadline: ContinuousClock.Instant
    /// Checks left before the instruction budget is spent; nil when only time counts.
    private var checksLeft: Int?
    /// Whether this watch stopped the statement: what tells its interruption from others.
    private(set) var expired = false

    private init(_ budget: StatementBudget) {
        deadline = .now + budget.time
        checksLeft = budget.sqliteInstructions.map { $0 / Int(Self.interval) }
    }

    /// Runs `body` on `db` within `budget`; `$regex` evaluation inside it shares the deadline.
    ///
    /// - Throws: `StatementBudget.exceeded` when the watch stopped a statement.
    static func run<T>(_ db: Database, budget: StatementBudget, _ body: (Database) throws -> T) throws -> T {
        let watch = SQLiteStatementWatch(budget)
        return try withExtendedLifetime(watch) {
            let connection = db.sqliteConnection
            sqlite3_progress_handler(connection, interval, { context in
                guard let context else { return 0 }
                return Unmanaged<SQLiteStatementWatch>.fromOpaque(context).takeUnretainedValue().check() ? 1 : 0
            }, Unmanaged.passUnretained(watch).toOpaque())
            defer { sqlite3_progress_handler(connection, 0, nil, nil) }
            do {
                return try RegexCache.$queryDeadline.withValue(watch.deadline) { try body(db) }
            } catch where watch.expired {
                throw StatementBudget.exceeded
            }
        }
    }

    /// Whether to interrupt the running statement.
    private func check() -> Bool {
        if let left = checksLeft {
            if left <= 0 { expired = true }
            checksLeft = left - 1
        }
        if ContinuousClock.now >= deadline { expired = true }
        return expired
    }
}
