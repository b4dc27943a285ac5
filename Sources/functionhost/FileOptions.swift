import ArgumentParser
import FunctionHost
import S3Storage
import Thumbnails

/// The options of `serve` about files: their size limit, who may delete them, thumbnails, and
/// the S3-compatible bucket their bytes may be kept in.
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

    @Option(
        name: .customLong("files-s3-endpoint"),
        help: "Keep files' bytes in an S3-compatible bucket at this URL (https://s3.us-east-1.amazonaws.com, http://127.0.0.1:9000) instead of the data directory.")
    var s3Endpoint: String?

    @Option(name: .customLong("files-s3-bucket"), help: "The bucket files are kept in (with --files-s3-endpoint).")
    var s3Bucket: String?

    @Option(name: .customLong("files-s3-region"), help: "The bucket's region, signed for (default: us-east-1).")
    var s3Region = "us-east-1"

    @Option(name: .customLong("files-s3-prefix"), help: "What every object name starts with (app/files/); none by default.")
    var s3Prefix = ""

    @Flag(
        name: .customLong("files-s3-path-style"),
        help: "Address the bucket as endpoint/bucket/key (MinIO, Ceph) rather than bucket.endpoint/key (AWS, R2, OSS).")
    var s3PathStyle = false

    @Option(name: .customLong("files-s3-access-key"), help: "The bucket's access key id (default: $AWS_ACCESS_KEY_ID).")
    var s3AccessKey: String?

    @Option(name: .customLong("files-s3-secret-key"), help: "The bucket's secret key (default: $AWS_SECRET_ACCESS_KEY).")
    var s3SecretKey: String?

    @Flag(
        name: .customLong("files-redirect"),
        help: "Answer GET /files/... with a redirect to a presigned URL of the bucket (valid 5 minutes) instead of streaming the bytes.")
    var filesRedirect = false

    /// Applies the options (and their environment variable) to a configuration.
    func apply(to configuration: inout HostConfiguration, environment: [String: String]) throws {
        if let megabytes = maxFileSize ?? environment["FUNCTIONHOST_MAX_FILE_SIZE_MB"].flatMap(Int.init) {
            guard megabytes > 0 else { throw ValidationError("--max-file-size must be at least 1 (megabytes).") }
            configuration.maxFileSize = megabytes * 1024 * 1024
        }
        configuration.ownersMayDeleteFiles = ownersDeleteFiles
        configuration.s3Files = try s3Settings(environment: environment)
        if filesRedirect, configuration.s3Files == nil {
            throw ValidationError("--files-redirect needs a bucket (--files-s3-endpoint and --files-s3-bucket).")
        }
        configuration.filesRedirect = filesRedirect
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

    /// The bucket the options name; nil when they name none.
    private func s3Settings(environment: [String: String]) throws -> S3Settings? {
        guard s3Endpoint != nil || s3Bucket != nil else { return nil }
        guard let s3Endpoint, let s3Bucket else {
            throw ValidationError("A bucket for files needs both --files-s3-endpoint and --files-s3-bucket.")
        }
        do {
            return try S3Settings(
                endpoint: s3Endpoint, region: s3Region, bucket: s3Bucket, prefix: s3Prefix,
                accessKey: s3AccessKey ?? environment["AWS_ACCESS_KEY_ID"] ?? "",
                secretKey: s3SecretKey ?? environment["AWS_SECRET_ACCESS_KEY"] ?? "", pathStyle: s3PathStyle)
        } catch {
            throw ValidationError(error.message)
        }
    }

    private static func duration(_ seconds: Double, option: String, least: Double) throws -> Duration {
        guard seconds.isFinite, seconds >= least, seconds <= 3600 else {
            throw ValidationError("\(option) takes seconds from \(least) to 3600.")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
