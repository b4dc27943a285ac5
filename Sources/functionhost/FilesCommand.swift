import ArgumentParser
import DataAPI
import Foundation
import JSON
import S3Storage

/// `functionhost files migrate|sweep`: the operator's tools for the bytes of files, run on the
/// data directory, the database and the bucket directly, as `import` is.
struct FilesCommand: AsyncParsableCommand {
    /// The help text, name and subcommands.
    static let configuration = CommandConfiguration(
        commandName: "files",
        abstract: "Move files' bytes from the data directory to a bucket, or find the bytes no file names.",
        subcommands: [FilesMigrate.self, FilesSweep.self])
}

/// `functionhost files migrate --to s3://bucket/prefix`: copies `<data-dir>/files` into a bucket.
struct FilesMigrate: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy the files of the data directory into an S3-compatible bucket, each verified by reading it back.",
        discussion: """
            Without downtime: first restart the hosts with the bucket's --files-s3-* options and \
            --files-s3-fallback (new files go to the bucket, files not copied yet are read from \
            the data directory), then run this; once it reports every file verified, the hosts \
            may drop --files-s3-fallback at their next restart. Each file is streamed to the \
            bucket and read back; its SHA-256 must be what was read from disk. Verified keys are \
            recorded beside the files, so running it again, after an interruption or not, copies \
            only the rest. A key the bucket holds other bytes under is reported and left alone. \
            Exits 1 unless every file is in the bucket, verified.
            """)

    @Option(
        name: .customLong("to"),
        help: ArgumentHelp("The bucket and prefix: s3://bucket/prefix (the host's --files-s3-bucket and --files-s3-prefix).", valueName: "url"))
    var destination: String

    @Option(name: .customLong("data-dir"), help: "The host's data directory; its files are under files/ (default: ./data).")
    var dataDirectory = "./data"

    /// The endpoint and credentials; the bucket and prefix come from `--to`.
    @OptionGroup var bucket: BucketOptions

    @Flag(help: "Print the summary as one line of JSON.")
    var json = false

    /// The bucket and prefix of an `s3://bucket/prefix` URL.
    static func bucketAndPrefix(_ url: String) throws -> (bucket: String, prefix: String) {
        guard url.hasPrefix("s3://") else { throw ValidationError("--to takes s3://bucket/prefix, not '\(url)'.") }
        let rest = url.dropFirst("s3://".count)
        let bucket = String(rest.prefix { $0 != "/" })
        let prefix = String(rest.dropFirst(bucket.count).dropFirst())
        return (bucket, prefix)
    }

    func validate() throws {
        guard bucket.s3Bucket == nil, bucket.s3Prefix.isEmpty else {
            throw ValidationError("--to names the bucket and prefix: leave out --files-s3-bucket and --files-s3-prefix.")
        }
        _ = try Self.bucketAndPrefix(destination)
    }

    func run() async throws {
        let (name, prefix) = try Self.bucketAndPrefix(destination)
        let settings = try bucket.settings(bucket: name, prefix: prefix, environment: ProcessInfo.processInfo.environment)
        let directory = URL(fileURLWithPath: dataDirectory).appendingPathComponent("files")
        guard FileManager.default.fileExists(atPath: directory.path) else {
            throw ValidationError("No files in \(dataDirectory): give the host's --data-dir.")
        }
        var migration = FileMigration(
            source: LocalFileStore(runningIn: directory), destination: S3FileStore(settings: settings),
            destinationName: "s3://\(name)/\(prefix)")
        if isatty(STDERR_FILENO) != 0 {
            // One line, rewritten per file, on a terminal only: a log gets the summary.
            migration.progress = { done, key in FileHandle.standardError.write(Data("\r\u{1B}[K\(done) files: \(key)".utf8)) }
        }
        let report = try await migration.run()
        if migration.progress != nil { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        if json {
            print(Self.summary(report).jsonString)
        } else {
            print("Copied and verified \(report.copied.count) files; \(report.skipped) verified before; \(report.matched) already in the bucket with the same bytes.")
            for key in report.conflicts { print("Conflict: the bucket holds other bytes under \(key); left as they are.") }
            for failure in report.failures { print("Failed: \(failure)") }
        }
        if !report.isComplete { throw ExitCode.failure }
    }

    private static func summary(_ report: FileMigration.Report) -> JSONValue {
        let counts: [String: JSONValue] = [
            "copied": .int(Int64(report.copied.count)), "skipped": .int(Int64(report.skipped)), "matched": .int(Int64(report.matched)),
        ]
        let conflicts = JSONValue.array(report.conflicts.map { JSONValue.string($0) })
        let failures = JSONValue.array(report.failures.map { JSONValue.string($0) })
        return .object(counts.merging(["conflicts": conflicts, "failures": failures]) { old, _ in old })
    }
}
