import Logging
internal import PostgresNIO
internal import _ConnectionPoolModule

extension PostgresStorage {
    /// postgres-nio logs each query at debug level; the engine's own errors say what matters.
    static let quiet = Logger(label: "functionhost.postgres.query", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs a read on a pooled connection, returning its rows as text.
    func rows(_ sql: SQL) async throws -> [[String]] {
        try await client.query(sql.query, logger: Self.quiet).texts()
    }

    /// Runs `body`, which only reads: a read interrupted by a lost connection is run again once
    /// (nothing was changed), and database failures become data-layer errors.
    func reading<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await body()
            } catch {
                let failure = Failure(error)
                if failure.isConnectionLoss, attempt < 2 { continue }
                throw report(failure, writing: false)
            }
        }
    }

    /// Runs `body` in a transaction and commits it.
    ///
    /// A transaction rolled back by a deadlock or a serialization failure is run again, as is
    /// one whose connection was lost before COMMIT was sent (the server rolled it back). A
    /// connection lost during COMMIT is never retried: the write may have been applied, and
    /// running it twice could apply an increment twice.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await client.withTransaction(logger: Self.quiet) { connection in
                    try await body(connection)
                }
            } catch {
                let failure = Failure(error)
                if failure.isRetryable, attempt < 5 { continue }
                throw report(failure, writing: true)
            }
        }
    }

    /// The error a failure becomes; the database's own message goes to the log (clients get a
    /// code and a plain message, never SQL).
    func report(_ failure: Failure, writing: Bool) -> any Error {
        let error = failure.dataError(writing: writing)
        if let data = error as? DataAPIError, data.code == .storageFailure || data.code == .temporarilyUnavailable {
            logger.error("PostgreSQL: \(String(reflecting: failure.underlying))")
        }
        return error
    }

    /// What a failure from postgres-nio means for the caller.
    struct Failure {
        /// The error the statement or the connection raised.
        var underlying: any Error
        /// Whether it was raised by COMMIT.
        var duringCommit = false

        /// With `sentAlone`, the error came from a write sent as a single statement: a lost
        /// connection leaves it as uncertain as one lost during COMMIT.
        init(_ error: any Error, sentAlone: Bool = false) {
            duringCommit = sentAlone
            if let transaction = error as? PostgresTransactionError {
                if let commit = transaction.commitError {
                    underlying = commit
                    duringCommit = true
                } else {
                    underlying = transaction.closureError ?? transaction.beginError ?? error
                }
            } else {
                underlying = error
            }
        }

        /// The SQLSTATE of a server error.
        var sqlState: String? { (underlying as? PSQLError)?.serverInfo?[.sqlState] }

        /// Whether the connection failed (or could not be made) rather than the statement.
        var isConnectionLoss: Bool {
            if let state = sqlState { return state.hasPrefix("08") || state.hasPrefix("57P") }
            guard let error = underlying as? PSQLError else { return false }
            switch error.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown: return true
            default: return false
            }
        }

        /// Whether running the whole transaction again is safe and may succeed.
        var isRetryable: Bool {
            if underlying is DataAPIError { return false }
            if sqlState == "40001" || sqlState == "40P01" { return true }
            return isConnectionLoss && !duringCommit
        }

        /// The error the data layer reports.
        func dataError(writing: Bool) -> any Error {
            if let error = underlying as? DataAPIError { return error }
            if underlying is ConnectionPoolError {
                return DataAPIError(.temporarilyUnavailable, "The database is unavailable; try again.")
            }
            if underlying is CancellationError { return underlying }
            switch sqlState {
            case "23505":
                // A unique field's value taken (`UniqueFields`), else an objectId given by the caller.
                return (underlying as? PSQLError)?.serverInfo?[.constraintName].flatMap(UniqueFields.violation(ofIndex:))
                    ?? DataAPIError(.duplicateValue, "An object with this objectId already exists.")
            case "22P05", "22021":
                return DataAPIError(.incorrectType, "PostgreSQL can't store this text (a NUL character, \\u0000).")
            case "2201B":
                return DataAPIError(.invalidQuery, "PostgreSQL does not support this regular expression.")
            case "54001":
                return DataAPIError(.invalidQuery, "The query is too complex.")
            case "57014":
                // `statement_timeout`: the only cancellation the engine asks for.
                return StatementBudget.exceeded
            default:
                break
            }
            if isConnectionLoss {
                if duringCommit {
                    return DataAPIError(
                        .temporarilyUnavailable,
                        "The connection to the database was lost while committing; the write may have been applied.")
                }
                return DataAPIError(.temporarilyUnavailable, "The database is unavailable; try again.")
            }
            return DataAPIError(
                .storageFailure, writing ? "The storage engine failed to write." : "The storage engine failed to read.")
        }
    }
}
