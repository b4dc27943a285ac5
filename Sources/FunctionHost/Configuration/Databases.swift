import DataAPI
import Foundation
import Logging
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

    /// Opens (and creates, when new) the databases of a configuration.
    static func open(_ configuration: HostConfiguration, logger: Logger) async throws -> Databases {
        var pools: [PostgresStorage] = []
        let production: any StorageEngine
        if let location = configuration.database {
            let pool = try await PostgresStorage(location: location, logger: logger)
            pools.append(pool)
            production = pool
            logger.info("Storage: PostgreSQL at \(location)")
        } else {
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
            production = try SQLiteStorage(path: configuration.databasePath)
        }
        var staging: (any StorageEngine)?
        if let location = configuration.stagingDatabase {
            let pool = try await PostgresStorage(location: location, logger: logger)
            pools.append(pool)
            staging = pool
        } else if let directory = configuration.stagingDataDirectory {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            staging = try SQLiteStorage(
                path: URL(fileURLWithPath: directory).appendingPathComponent("functionhost.sqlite").path)
        }
        return Databases(production: production, staging: staging, pools: pools)
    }

    /// The engine requests use: production's, or the pair that picks by environment.
    var storage: any StorageEngine {
        guard let staging else { return production }
        return EnvironmentStorage(production: production, staging: staging)
    }

    /// A service that closes the pools once the server has stopped (it is listed before the
    /// server, so it is shut down after it: in-flight requests keep their database).
    var lifetime: DatabaseLifetime { DatabaseLifetime(pools: pools) }
}

/// Closes the PostgreSQL pools when the application shuts down.
struct DatabaseLifetime: Service {
    let pools: [PostgresStorage]

    func run() async throws {
        // Cancellation ends the wait too (a test's server is cancelled, not signalled).
        try? await gracefulShutdown()
        for pool in pools { await pool.close() }
    }
}
