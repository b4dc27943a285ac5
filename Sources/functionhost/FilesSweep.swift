import ArgumentParser
import DataAPI
import Foundation
import FunctionHost
import Logging
import S3Storage

/// `functionhost files sweep [--delete]`: the stored bytes no `_File` names.
struct FilesSweep: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "List the stored files' bytes (in the data directory, or the bucket of --files-s3-*) that no _File names.",
        discussion: """
            Bytes are left behind when a host stops between deleting a _File and its bytes, or \
            when an upload's object is never written. A key a _File of production or staging \
            names, or an upload token promises, is never listed, nor bytes younger than \
            --older-than (an upload stores its bytes before its _File). With --delete, what is \
            listed is removed.
            """)

    /// The database whose `_File` objects name keys, and the data directory.
    @OptionGroup var target: DatabaseLocation

    @Option(name: .customLong("staging-database"), help: "Staging's own PostgreSQL database, when it has one: its files count too.")
    var stagingDatabase: String?

    @Option(name: .customLong("staging-data-dir"), help: "Staging's own data directory (SQLite), when it has one: its files count too.")
    var stagingDataDirectory: String?

    /// The bucket, when the host keeps files in one.
    @OptionGroup var bucket: BucketOptions

    @Option(name: .customLong("older-than"), help: ArgumentHelp("Only bytes written at least this many minutes ago (default: 60).", valueName: "minutes"))
    var olderThan = 60

    @Flag(help: "Remove what is listed.")
    var delete = false

    @Flag(
        name: .customLong("whole-bucket"),
        help: "Sweep a bucket without --files-s3-prefix: every object in it is taken for a file of this app's.")
    var wholeBucket = false

    func validate() throws {
        guard (0...525_600).contains(olderThan) else { throw ValidationError("--older-than takes 0 to 525600 minutes.") }
        guard stagingDatabase == nil || stagingDataDirectory == nil else {
            throw ValidationError("Give staging's --staging-database or its --staging-data-dir, not both.")
        }
    }

    func run() async throws {
        // A database that doesn't exist would be made empty here, and every file taken for an orphan.
        var sqlite: [String] = []
        if try target.postgres() == nil { sqlite.append(target.dataDirectory) }
        if let stagingDataDirectory { sqlite.append(stagingDataDirectory) }
        for directory in sqlite where !FileManager.default.fileExists(atPath: HostConfiguration.databasePath(in: directory)) {
            throw ValidationError("No database in \(directory): give the host's --data-dir, or --database.")
        }
        let store: any FileContentStore
        if let settings = try bucket.settings(environment: ProcessInfo.processInfo.environment) {
            // A prefix is a folder: `app` would also take `apple-backup.tar` for a file's bytes.
            if settings.prefix.isEmpty {
                guard wholeBucket else {
                    throw ValidationError(
                        "Without --files-s3-prefix the sweep would take every object in the bucket for this app's: give --whole-bucket if the bucket is the app's alone.")
                }
            } else if !settings.prefix.hasSuffix("/") {
                throw ValidationError("--files-s3-prefix must end in '/' for a sweep ('\(settings.prefix)/'): objects beside the folder are not the app's.")
            }
            store = S3FileStore(settings: settings)
        } else {
            store = LocalFileStore(runningIn: URL(fileURLWithPath: target.dataDirectory).appendingPathComponent("files"))
        }
        var logger = Logger(label: "functionhost.files")
        logger.logLevel = .warning
        let report = try await FunctionHostServer.withStorage(
            dataDirectory: target.dataDirectory, database: try target.postgres(), logger: logger
        ) { production in
            try await withStaging(logger: logger) { staging in
                var sweep = FileSweep(store: store, databases: [production] + (staging.map { [$0] } ?? []))
                sweep.minimumAge = .seconds(olderThan * 60)
                return try await sweep.run(deleting: delete)
            }
        }
        for orphan in report.orphans { print("\(orphan.key)\t\(orphan.size) bytes\t\(ISODate.string(fromMilliseconds: Int64(orphan.modified.timeIntervalSince1970 * 1000)))") }
        let total = report.orphans.reduce(0) { $0 + $1.size }
        print(
            "\(report.stored) stored, \(report.orphans.count) named by no file (\(total) bytes)"
                + (delete ? ", \(report.deleted) removed" : "") + (report.young > 0 ? "; \(report.young) younger than \(olderThan) minutes left out" : "") + ".")
    }

    /// Runs `body` with staging's own database, or nil when staging shares production's.
    private func withStaging<T: Sendable>(logger: Logger, _ body: ((any StorageEngine)?) async throws -> T) async throws -> T {
        if let stagingDatabase {
            guard let location = PostgresLocation(url: stagingDatabase) else {
                throw ValidationError("--staging-database must be a URL such as postgres://user:password@host:5432/database.")
            }
            return try await FunctionHostServer.withStorage(dataDirectory: target.dataDirectory, database: location, logger: logger) {
                try await body($0)
            }
        }
        if let stagingDataDirectory {
            return try await FunctionHostServer.withStorage(dataDirectory: stagingDataDirectory, database: nil, logger: logger) {
                try await body($0)
            }
        }
        return try await body(nil)
    }
}
