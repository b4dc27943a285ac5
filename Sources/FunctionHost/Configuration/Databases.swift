package import DataAPI
import Foundation
import LiveQuery
import LiveQueryPostgres
package import Logging
import ServiceLifecycle

/// The storage engines a configuration names, opened: SQLite under the data directory, or a
/// PostgreSQL database several hosts share; and staging's own, when it has one.
struct Databases: Sendable {
    /// Production's engine (staging's too, unless it has its own).
    let production: any StorageEngine
    /// Staging's own engine; nil when staging shares production's data.
    let staging: (any StorageEngine)?
    /// The PostgreSQL pools, closed when the host stops.
    let pools: [PostgresStorage]
    /// The change feed the hosts sharing production's PostgreSQL database follow; nil on SQLite,
    /// where each host has its own (`Databases+ChangeFeed.swift`).
    var changeFeed: PostgresChangeFeed? = nil

    /// Opens (and creates, when new) the databases of a configuration.
    static func open(_ configuration: HostConfiguration, logger: Logger) async throws -> Databases {
        var pools: [PostgresStorage] = []
        let budget = configuration.statementBudget
        let production = try await openProduction(
            dataDirectory: configuration.dataDirectory, database: configuration.database, budget: budget, logger: logger)
        if let pool = production as? PostgresStorage { pools.append(pool) }
        var staging: (any StorageEngine)?
        if let location = configuration.stagingDatabase {
            let pool = try await PostgresStorage(location: location, budget: budget, logger: logger)
            pools.append(pool)
            staging = pool
        } else if let directory = configuration.stagingDataDirectory {
            staging = try openSQLite(in: directory, budget: budget, logger: logger)
        }
        var databases = Databases(production: production, staging: staging, pools: pools)
        do {
            databases.changeFeed = try await changeFeed(for: configuration, engines: databases.engines, logger: logger)
        } catch {
            await databases.close()
            throw error
        }
        return databases
    }

    /// Closes the change feed and the pools (a host that failed to start, a tool done with them).
    func close() async {
        await changeFeed?.close()
        for pool in pools { await pool.close() }
    }

    /// Production's engine alone: the PostgreSQL database when one is named, else SQLite under
    /// the data directory (created when new). Tools that work on the data without serving it
    /// (`functionhost import`) open it the same way the server does.
    static func openProduction(
        dataDirectory: String, database: PostgresLocation?, budget: StatementBudget, logger: Logger
    ) async throws -> any StorageEngine {
        if let database {
            let pool = try await PostgresStorage(location: database, budget: budget, logger: logger)
            logger.info("Storage: PostgreSQL at \(database)")
            return pool
        }
        return try openSQLite(in: dataDirectory, budget: budget, logger: logger)
    }

    /// The SQLite database under a data directory, its directory 0700 and its files 0600.
    private static func openSQLite(in directory: String, budget: StatementBudget, logger: Logger) throws -> SQLiteStorage {
        try DataDirectory.prepare(directory)
        let path = HostConfiguration.databasePath(in: directory)
        try DataDirectory.prepareDatabase(at: path)
        return try SQLiteStorage(path: path, budget: budget, logger: logger)
    }

    /// The engine of each environment: production's, and staging's own or production's.
    var engines: StorageEngines {
        guard let staging else { return StorageEngines(production) }
        return StorageEngines(production: production, staging: staging)
    }

    /// A service that closes the pools once the server has stopped (it is listed before the
    /// server, so it is shut down after it: in-flight requests keep their database).
    var lifetime: DatabaseLifetime { DatabaseLifetime(databases: self) }
}

/// Follows the change feed while the application runs, then closes it and the PostgreSQL pools
/// when the application shuts down.
struct DatabaseLifetime: Service {
    let databases: Databases

    func run() async throws {
        // Cancellation ends the wait too (a test's server is cancelled, not signalled).
        if let feed = databases.changeFeed {
            await cancelWhenGracefulShutdown { await feed.run() }
        } else {
            try? await gracefulShutdown()
        }
        await databases.close()
    }
}

extension FunctionHostServer {
    /// Runs `body` on the production database of a data directory, or of a PostgreSQL URL, opened
    /// as `serve` opens it (and created when new), and closes it after: for tools that work on
    /// the data without serving it, such as `functionhost import`.
    package static func withStorage<T: Sendable>(
        dataDirectory: String, database: PostgresLocation?, logger: Logger,
        _ body: (any StorageEngine) async throws -> T
    ) async throws -> T {
        // Not a request: held to the offline budget, not a client's 5 s.
        let storage = try await Databases.openProduction(
            dataDirectory: dataDirectory, database: database, budget: .offline, logger: logger)
        let pool = storage as? PostgresStorage
        do {
            let result = try await body(storage)
            await pool?.close()
            return result
        } catch {
            await pool?.close()
            throw error
        }
    }
}
