import ArgumentParser
import DataAPI
import FunctionHost

/// The options of `serve` about where objects live: SQLite under the data directory (the
/// default), or a PostgreSQL database that several hosts share.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database"),
        help: """
            A PostgreSQL URL to keep objects in, shared by every host given it: \
            postgres://user:password@host:port/database[?schema=NAME&pool=N&sslmode=disable|prefer|require] \
            (default: $DATABASE_URL, else SQLite under --data-dir).
            """)
    var database: String?

    @Option(
        name: .customLong("staging-database"),
        help: "A PostgreSQL URL of staging's own database (default: staging shares production's data).")
    var stagingDatabase: String?

    @Flag(
        name: .customLong("livequery-across-hosts"), inversion: .prefixedNo,
        help: """
            With --database (on by default): LiveQuery subscribers hear writes made on every host \
            sharing it, through a change table in the database (each write of a class some host's \
            subscriptions watch costs one more short transaction). With --no-livequery-across-hosts, \
            a host's subscribers hear the writes made through that host only.
            """)
    var liveQueryAcrossHosts = true

    /// Applies the options (and `DATABASE_URL`) to a configuration.
    func apply(to configuration: inout HostConfiguration, environment: [String: String]) throws {
        if let url = database ?? environment["DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.database = try Self.location(url, option: "--database")
        }
        configuration.liveQueryAcrossHosts = liveQueryAcrossHosts
        if let stagingDatabase {
            configuration.stagingDatabase = try Self.location(stagingDatabase, option: "--staging-database")
        }
    }

    private static func location(_ url: String, option: String) throws -> PostgresLocation {
        guard let location = PostgresLocation(url: url) else {
            throw ValidationError(
                "\(option) must be a URL such as postgres://user:password@host:5432/database (schema: letters, digits and _; pool: 1-1000; sslmode: disable, prefer or require).")
        }
        return location
    }
}
