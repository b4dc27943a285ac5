import ArgumentParser
import AsyncHTTPClient
import DataAPI
import Foundation
import FunctionHost
import Logging
import S3Storage

/// `functionhost import PATH` or `functionhost import --from-server URL`: moves an app's data into
/// this host's database.
struct Import: AsyncParsableCommand {
    /// The help text and name.
    static let configuration = CommandConfiguration(
        abstract: "Import a LeanCloud export (or a live app's classes) into the database.",
        discussion: """
            PATH is a console export archive (.tar.gz), a folder of its files (<Class>.0.jsonl, \
            _Join:<field>:<Class>.jsonl, <Class>_schema.json), or one JSON Lines file. Objects keep \
            their ids, dates, ACLs and typed values; the schema files' class permissions and field \
            flags become the classes' settings; users keep their passwords (LeanCloud's hashes \
            are checked at login and replaced by this host's) and session tokens. No hooks run. An \
            object whose id is already there is left alone, so running an import again, after an \
            interruption or not, gives the same database. Lines that can't be imported are listed \
            with file, line and reason. With SQLite, stop the server first.
            """)

    @Argument(help: "The export: a .tar.gz archive, a folder, or a .jsonl file.")
    var path: String?

    @Option(
        name: .customLong("from-server"),
        help: ArgumentHelp(
            "Pull every class of a live app through its Scan API instead (LeanCloud, or any compatible server).",
            valueName: "url"))
    var server: String?

    @Option(name: .customLong("app-id"), help: "The live app's id (with --from-server; default: $LEANCLOUD_APP_ID).")
    var appId: String?

    @Option(
        name: .customLong("master-key"),
        help: "The live app's master key (with --from-server; default: $LEANCLOUD_APP_MASTER_KEY).")
    var masterKey: String?

    @Option(
        name: .customLong("classes"),
        help: ArgumentHelp(
            "With --from-server: only these classes, comma-separated (default: every class its /schemas lists).",
            valueName: "names"))
    var classes: String?

    /// The database to import into.
    @OptionGroup var target: DatabaseLocation

    private var dataDirectory: String { target.dataDirectory }

    @Option(
        name: .customLong("files"),
        help: ArgumentHelp(
            "A folder holding the bytes of the export's files, each named by its key: they are copied into the host's file store (the data directory, or the bucket of --files-s3-*) and served here.",
            valueName: "dir"))
    var filesDirectory: String?

    @Flag(
        name: .customLong("download-files"),
        help: "Fetch the bytes --files does not hold from each file's url (LeanCloud's file domain, while it answers), straight into the file store. Run again after an interruption: bytes already stored with the export's size are kept.")
    var downloadFiles = false

    @Option(
        name: .customLong("download-allow"),
        help: ArgumentHelp(
            "With --download-files: hosts whose internal addresses downloads may reach, comma-separated (files.internal, 10.0.0.5:8080). Without it only public addresses are: the urls come from the export's _File objects, which end users could write.",
            valueName: "hosts"))
    var downloadAllow: String?

    @Option(
        name: .customLong("max-file-size"),
        help: "With --download-files: the largest file fetched, in megabytes (default: $FUNCTIONHOST_MAX_FILE_SIZE_MB, else 100, as serve takes). A larger one keeps its old url and is reported; run again with a larger size to fetch it.")
    var maxFileSize: Int?

    @Option(
        name: .customLong("public-url"),
        help: "Where this host will serve files (https://api.example.com), for the urls of files brought in (default: $FUNCTIONHOST_PUBLIC_URL).")
    var publicURL: String?

    @Option(
        name: .customLong("files-url"),
        help: ArgumentHelp(
            "The file domain the host will serve files on (its --files-url; default: $FUNCTIONHOST_FILES_URL): files brought in get urls <url>/<key>. Give the app's LeanCloud file domain to keep its urls as they are.",
            valueName: "url"))
    var filesURL: String?

    /// The bucket the host keeps files in, when it keeps them in one.
    @OptionGroup var bucket: BucketOptions

    @Flag(
        name: .customLong("drop-session-tokens"),
        help: "Give imported users new session tokens, so every app logs in again (default: their tokens keep working).")
    var dropSessionTokens = false

    @Flag(help: "Print the summary as one line of JSON.")
    var json = false

    func validate() throws {
        guard (path == nil) != (server == nil) else {
            throw ValidationError("Give either an export PATH or --from-server URL.")
        }
        if filesDirectory != nil || downloadFiles, try fileURLs() == nil {
            throw ValidationError(
                "--files and --download-files need --public-url (or --files-url): the address the files will be served at.")
        }
        if downloadAllow != nil, !downloadFiles {
            throw ValidationError("--download-allow goes with --download-files.")
        }
        if maxFileSize != nil, !downloadFiles {
            throw ValidationError("--max-file-size goes with --download-files.")
        }
        if downloadFiles {
            let maxBytes = try downloadLimit()
            do {
                _ = try FileDownloader.policy(allowing: downloadAllow ?? "", maxBytes: maxBytes)
            } catch {
                throw ValidationError("--download-allow: \(error)")
            }
        }
        if server == nil, appId != nil || masterKey != nil || classes != nil {
            throw ValidationError("--app-id, --master-key and --classes go with --from-server.")
        }
    }

    /// Imports into `storage`: a failure that stops the import comes back with what was done.
    private func perform(
        on storage: any StorageEngine, pull: ServerPull?, bar: ImportProgressBar?, downloader: FileDownloader?
    ) async throws -> Result<ImportSummary, ImportFailure> {
        var importer = ExportImporter(storage: storage, decoder: ExportDecoder(keepsSessionTokens: !dropSessionTokens))
        if filesDirectory != nil || downloadFiles, let urls = try fileURLs() {
            let store: any FileContentStore
            if let settings = try bucket.settings(environment: ProcessInfo.processInfo.environment) {
                store = S3FileStore(settings: settings)
            } else {
                // Beside a running host (PostgreSQL), whose uploads under way are in `.incoming`:
                // made when missing, never emptied.
                let files = URL(fileURLWithPath: dataDirectory).appendingPathComponent("files")
                try FileManager.default.createDirectory(at: files.appendingPathComponent(".incoming"), withIntermediateDirectories: true)
                store = LocalFileStore(runningIn: files)
            }
            var fileBytes = ExportFileBytes(sourceDirectory: filesDirectory, store: store, urls: urls)
            if let downloader {
                fileBytes.download = { url, upload in try await downloader.download(url, into: upload) }
            }
            importer.fileBytes = fileBytes
        }
        if let bar { importer.progress = { bar.show($0) } }
        do {
            if let pull {
                try await pull.run(into: &importer)
            } else if let path {
                try await importer.importPath(path)
            }
        } catch let error as DataAPIError where error.code == .importFailure {
            return .failure(ImportFailure(message: error.message, summary: importer.summary))
        } catch let error as ClientFailure {
            return .failure(ImportFailure(message: error.message, summary: importer.summary))
        }
        return .success(importer.summary)
    }

    /// The urls files brought in get: under the file domain when there is one, else under the
    /// public URL's `/files/`; nil when neither is known.
    private func fileURLs() throws -> FileURLs? {
        let environment = ProcessInfo.processInfo.environment
        if let domain = try FileOptions.fileDomain(filesURL, environment: environment) { return domain.urls }
        return resolvedPublicURL.map { FileURLs.served(at: $0) }
    }

    /// The downloader `--download-files` asks for, with the hosts `--download-allow` lists.
    private func downloader(through client: HTTPClient) throws -> FileDownloader? {
        guard downloadFiles else { return nil }
        return try FileDownloader(allowing: downloadAllow ?? "", maxBytes: downloadLimit(), client: client)
    }

    /// The most one downloaded file may be, in bytes: `--max-file-size`, else the limit `serve`
    /// takes from the environment, else its default. End users write the export's `_File`
    /// objects, urls and sizes alike, so nothing in the export can raise it.
    private func downloadLimit() throws -> Int {
        try FileOptions.maxFileSize(megabytes: maxFileSize, environment: ProcessInfo.processInfo.environment)
            ?? HostConfiguration.defaultMaxFileSize
    }

    private var resolvedPublicURL: String? {
        let url = publicURL ?? ProcessInfo.processInfo.environment["FUNCTIONHOST_PUBLIC_URL"]
        guard var url, !url.isEmpty else { return nil }
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    func run() async throws {
        let location = try target.postgres()
        var logger = Logger(label: "functionhost.import")
        logger.logLevel = .warning
        let pull = try server.map { try ServerPull(server: $0, appId: appId, masterKey: masterKey, classes: classes) }
        let started = ContinuousClock.now
        let bar = ImportProgressBar()
        let outcome = try await HTTPClient.withHTTPClient(configuration: FileDownloader.configuration) { client in
            let downloader = try downloader(through: client)
            return try await FunctionHostServer.withStorage(dataDirectory: dataDirectory, database: location, logger: logger) {
                storage in
                try await perform(on: storage, pull: pull, bar: bar, downloader: downloader)
            }
        }
        bar?.finish()
        let elapsed = started.duration(to: .now)
        switch outcome {
        case .success(let summary):
            print(json ? ImportReport.json(summary, elapsed: elapsed) : ImportReport.text(summary, elapsed: elapsed))
        case .failure(let failure):
            print(ImportReport.text(failure.summary, elapsed: elapsed))
            FileHandle.standardError.write(Data("functionhost: import stopped: \(failure.message)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// Why an import stopped, with what it had done by then.
struct ImportFailure: Error, Sendable {
    let message: String
    let summary: ImportSummary
}
