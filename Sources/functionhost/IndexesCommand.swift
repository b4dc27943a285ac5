import ArgumentParser
import DataAPI
import Foundation
import FunctionHost
import Logging

/// `functionhost indexes list|drop`: the indexes the host created for queries.
///
/// It works on the database directly, as `import` does, rather than through a server: an
/// operator's tool needs no new master-key endpoint (nothing more for a leaked key to reach),
/// and it works while no server runs.
struct IndexesCommand: AsyncParsableCommand {
    /// The help text, name and subcommands.
    static let configuration = CommandConfiguration(
        commandName: "indexes",
        abstract: "List or drop the indexes the server created for queries.",
        discussion: """
            The server indexes a field once clients have queried it 20 times (at once for the \
            master key), at most 16 per class. Dropping one makes room for another; a running \
            server creates it again only after a restart, when queries ask for it again.
            """,
        subcommands: [IndexesList.self, IndexesDrop.self])
}

/// Where the database of a tool is (`import`, `indexes`): SQLite under a data directory, or
/// a PostgreSQL URL.
struct DatabaseLocation: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The data directory of the SQLite database.")
    var dataDirectory: String = "./data"

    @Option(
        name: .customLong("database"),
        help: "A PostgreSQL URL instead (default: $DATABASE_URL, else SQLite under --data-dir).")
    var database: String?

    /// The PostgreSQL database named by `--database` or `$DATABASE_URL`; nil for SQLite.
    func postgres() throws -> PostgresLocation? {
        guard let url = database ?? ProcessInfo.processInfo.environment["DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 })
        else { return nil }
        guard let parsed = PostgresLocation(url: url) else {
            throw ValidationError("--database must be a URL such as postgres://user:password@host:5432/database.")
        }
        return parsed
    }

    /// Runs `body` on the database's index administration.
    func withIndexes<T: Sendable>(_ body: (any IndexAdministration) async throws -> T) async throws -> T {
        let location = try postgres()
        if location == nil, !FileManager.default.fileExists(atPath: HostConfiguration.databasePath(in: dataDirectory)) {
            throw ValidationError("No database in \(dataDirectory): give the server's --data-dir, or --database.")
        }
        var logger = Logger(label: "functionhost.indexes")
        logger.logLevel = .warning
        return try await FunctionHostServer.withStorage(dataDirectory: dataDirectory, database: location, logger: logger) {
            storage in
            guard let indexes = storage as? any IndexAdministration else {
                throw ValidationError("This database can't list its indexes.")
            }
            return try await body(indexes)
        }
    }

    /// Runs `body`, printing a data-layer error (no such class, no such index) as one line.
    static func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as DataAPIError {
            FileHandle.standardError.write(Data("functionhost: \(error.message)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// `functionhost indexes list [Class]`.
struct IndexesList: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Print each index of a class (or of every class): class, name, automatic or schema, definition.")

    @Argument(help: "The class (default: every class).")
    var className: String?

    @OptionGroup var location: DatabaseLocation

    func run() async throws {
        try await DatabaseLocation.reporting {
            let indexes = try await location.withIndexes { try await $0.indexes(of: className) }
            let rows = indexes.map { [$0.className, $0.name, $0.automatic ? "automatic" : "schema", $0.definition] }
            // Columns padded to their widest cell, the definition last and unpadded.
            var widths = [0, 0, 0]
            for row in rows { for column in 0..<3 { widths[column] = max(widths[column], row[column].count) } }
            for row in rows {
                let padded = (0..<3).map { row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                print((padded + [row[3]]).joined(separator: "  "))
            }
            if rows.isEmpty { print("No indexes.") }
        }
    }
}

/// `functionhost indexes drop <Class> <name>`.
struct IndexesDrop: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "drop",
        abstract: "Drop an automatic index of a class, by the name `indexes list` shows (ix_<field>, gin).")

    @Argument(help: "The class.")
    var className: String

    @Argument(help: "The index's name.")
    var name: String

    @OptionGroup var location: DatabaseLocation

    func run() async throws {
        try await DatabaseLocation.reporting {
            try await location.withIndexes { try await $0.dropIndex(className, name: name) }
            print("Dropped \(name) of \(className).")
        }
    }
}
