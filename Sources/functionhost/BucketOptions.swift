import ArgumentParser
import S3Storage

/// The `--files-s3-*` options: the S3-compatible bucket files' bytes are kept in, shared by
/// `serve`, `import` and `files` so each names a bucket the same way.
struct BucketOptions: ParsableArguments {
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

    private static let incomplete = ValidationError("A bucket for files needs both --files-s3-endpoint and --files-s3-bucket.")

    /// The bucket the options name; nil when they name none.
    func settings(environment: [String: String]) throws -> S3Settings? {
        guard s3Endpoint != nil || s3Bucket != nil else { return nil }
        guard let s3Bucket else {
            throw Self.incomplete
        }
        return try settings(bucket: s3Bucket, prefix: s3Prefix, environment: environment)
    }

    /// The settings of `bucket` and `prefix` at the endpoint the options name (`files migrate
    /// --to s3://bucket/prefix` names them apart).
    func settings(bucket: String, prefix: String, environment: [String: String]) throws -> S3Settings {
        guard let s3Endpoint else {
            throw Self.incomplete
        }
        do {
            return try S3Settings(
                endpoint: s3Endpoint, region: s3Region, bucket: bucket, prefix: prefix,
                accessKey: s3AccessKey ?? environment["AWS_ACCESS_KEY_ID"] ?? "",
                secretKey: s3SecretKey ?? environment["AWS_SECRET_ACCESS_KEY"] ?? "", pathStyle: s3PathStyle)
        } catch {
            throw ValidationError(error.message)
        }
    }
}
