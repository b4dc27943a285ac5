import ArgumentParser
import Foundation
import FunctionHost
import S3Storage
import Thumbnails

/// The options of `serve` about files: their size limit, who may delete them, thumbnails, and
/// the S3-compatible bucket their bytes may be kept in, and the host name they may be served on.
struct FileOptions: ParsableArguments {
    @Option(
        name: .customLong("max-file-size"),
        help: "The largest file accepted, in megabytes (default: $FUNCTIONHOST_MAX_FILE_SIZE_MB, else 100).")
    var maxFileSize: Int?

    @Flag(
        name: .customLong("owners-delete-files"),
        help: "Let a file's owner delete it without the master key (closed by default, as on LeanCloud).")
    var ownersDeleteFiles = false

    @Option(
        name: .customLong("thumbnail-cache-mb"),
        help: "Megabytes of thumbnails (?imageView2/...) kept on disk under the data directory; 0 keeps none (default: 256).")
    var thumbnailCacheMegabytes: Int?

    @Option(
        name: .customLong("thumbnail-slots"),
        help: "Thumbnails made at once, one client at most half of them; past them a request waits --thumbnail-wait, then 503 (default: 2).")
    var thumbnailSlots: Int?

    @Option(
        name: .customLong("thumbnail-wait"),
        help: ArgumentHelp("Seconds a thumbnail request waits for a slot (default: 2).", valueName: "seconds"))
    var thumbnailWait: Double?

    @Option(
        name: .customLong("thumbnail-timeout"),
        help: ArgumentHelp("Seconds making one thumbnail may take; past it, 503 (default: 10).", valueName: "seconds"))
    var thumbnailTimeout: Double?

    /// The bucket files' bytes may be kept in.
    @OptionGroup var bucket: BucketOptions

    @Option(
        name: .customLong("files-url"),
        help: ArgumentHelp(
            "Serve files on a host name of their own (https://files.example.com, default: $FUNCTIONHOST_FILES_URL): new files' urls are <url>/<key>, and requests to that name get files only, so an app's old LeanCloud file urls work once the domain points here.",
            valueName: "url"))
    var filesURL: String?

    @Flag(
        name: .customLong("files-s3-fallback"),
        help: "While files move to the bucket (functionhost files migrate): read a key the bucket lacks from the data directory; new files go to the bucket, deletes remove both copies.")
    var s3Fallback = false

    @Flag(
        name: .customLong("files-redirect"),
        help: "Answer GET /files/... with a redirect to a presigned URL of the bucket (valid 5 minutes) instead of streaming the bytes.")
    var filesRedirect = false

    /// The largest file in bytes: `--max-file-size` (`megabytes`), else
    /// `$FUNCTIONHOST_MAX_FILE_SIZE_MB`; nil when neither is given. Below 1 megabyte is refused.
    static func maxFileSize(megabytes: Int?, environment: [String: String]) throws -> Int? {
        guard let megabytes = megabytes ?? environment["FUNCTIONHOST_MAX_FILE_SIZE_MB"].flatMap(Int.init) else { return nil }
        guard megabytes > 0, megabytes <= Int.max / (1024 * 1024) else {
            throw ValidationError("--max-file-size must be at least 1 (megabytes).")
        }
        return megabytes * 1024 * 1024
    }

    /// Applies the options (and their environment variable) to a configuration.
    func apply(to configuration: inout HostConfiguration, environment: [String: String]) throws {
        if let bytes = try Self.maxFileSize(megabytes: maxFileSize, environment: environment) {
            configuration.maxFileSize = bytes
        }
        configuration.ownersMayDeleteFiles = ownersDeleteFiles
        configuration.s3Files = try bucket.settings(environment: environment)
        configuration.fileDomain = try Self.fileDomain(filesURL, environment: environment)
        if filesRedirect, configuration.s3Files == nil {
            throw ValidationError("--files-redirect needs a bucket (--files-s3-endpoint and --files-s3-bucket).")
        }
        configuration.filesRedirect = filesRedirect
        if s3Fallback, configuration.s3Files == nil {
            throw ValidationError("--files-s3-fallback needs a bucket (--files-s3-endpoint and --files-s3-bucket).")
        }
        configuration.filesFallBackToDisk = s3Fallback
        if let megabytes = thumbnailCacheMegabytes {
            guard megabytes >= 0 else { throw ValidationError("--thumbnail-cache-mb must be at least 0.") }
            configuration.thumbnails.cacheBytes = megabytes * 1024 * 1024
        }
        if let seconds = thumbnailTimeout {
            configuration.thumbnails.limits.timeBudget = try Self.duration(seconds, option: "--thumbnail-timeout", least: 0.001)
        }
        if thumbnailSlots != nil || thumbnailWait != nil {
            let slots = thumbnailSlots ?? configuration.thumbnails.gate.slots
            guard (1...256).contains(slots) else { throw ValidationError("--thumbnail-slots takes 1 to 256.") }
            let wait = try thumbnailWait.map { try Self.duration($0, option: "--thumbnail-wait", least: 0) }
            configuration.thumbnails.gate = ThumbnailGate(slots: slots, maxWait: wait ?? configuration.thumbnails.gate.maxWait)
        }
    }

    /// The file domain `--files-url` (or `$FUNCTIONHOST_FILES_URL`) names; nil for none.
    static func fileDomain(_ url: String?, environment: [String: String]) throws -> FileDomain? {
        guard let url = url ?? environment["FUNCTIONHOST_FILES_URL"], !url.isEmpty else { return nil }
        guard let domain = FileDomain(url: url) else {
            throw ValidationError("--files-url takes an http(s) URL with a host name and no path: '\(url)'.")
        }
        return domain
    }

    /// Refuses a file domain that is also the API's host name (`--public-url`) or the app's web
    /// pages' (`--engine-web-host`): requests to it are answered with files only, and the API
    /// or the pages would be gone from it.
    static func checkFileDomain(of configuration: HostConfiguration) throws {
        guard let domain = configuration.fileDomain else { return }
        var taken: [(String, String)] = []
        if let url = configuration.publicURL, let host = URLComponents(string: url)?.host { taken.append((host.lowercased(), "--public-url")) }
        if let host = configuration.engineWeb.host { taken += [(host, "--engine-web-host"), ("stg-" + host, "--engine-web-host (staging)")] }
        for (host, option) in taken where FileDomain.name(host) == domain.hostName {
            throw ValidationError("--files-url must be a host name of its own: \(host) is also \(option)'s, whose requests would get files only.")
        }
    }

    private static func duration(_ seconds: Double, option: String, least: Double) throws -> Duration {
        guard seconds.isFinite, seconds >= least, seconds <= 3600 else {
            throw ValidationError("\(option) takes seconds from \(least) to 3600.")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
