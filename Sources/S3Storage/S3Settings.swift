public import Foundation

/// Where a bucket is and how to sign for it: what the operator's `--files-s3-*` options say.
public struct S3Settings: Sendable, Equatable {
    /// The store's address: `https://s3.us-east-1.amazonaws.com`, `http://127.0.0.1:9000`.
    public var endpoint: URL
    /// The region signed for (`us-east-1`; MinIO and most others take any).
    public var region: String
    /// The bucket.
    public var bucket: String
    /// What every object's name starts with (`app/files/`), so a bucket can hold other things.
    public var prefix: String
    /// The access key id.
    public var accessKey: String
    /// The secret access key.
    public var secretKey: String
    /// `endpoint/bucket/key` (MinIO, Ceph, most self-hosted stores) rather than
    /// `bucket.endpoint/key` (AWS's default, R2, OSS).
    public var pathStyle: Bool
    /// Bytes sent per part of a multipart upload; a file up to this size goes in one PutObject.
    /// What one upload holds in memory at most.
    public var partSize = 8 * 1024 * 1024

    /// The largest prefix: keys are short, and so should be the folder they are put under.
    public static let maxPrefixLength = 200

    /// Checked settings.
    ///
    /// - Throws: `invalidSettings` for an endpoint without an http(s) scheme and host, a bucket
    ///   name S3 doesn't allow, a prefix with characters other than letters, digits and
    ///   `/-_.`, or empty credentials.
    public init(
        endpoint: String, region: String, bucket: String, prefix: String = "", accessKey: String, secretKey: String,
        pathStyle: Bool
    ) throws(S3Error) {
        guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty, url.query == nil, url.path.isEmpty || url.path == "/"
        else {
            throw S3Error(.invalidSettings, "The S3 endpoint must be an http(s) URL with a host and no path: '\(endpoint)'.")
        }
        // S3's bucket naming rules, which every compatible store takes.
        guard (3...63).contains(bucket.count), bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") }),
            bucket.first?.isLetter == true || bucket.first?.isNumber == true
        else {
            throw S3Error(.invalidSettings, "'\(bucket)' is no valid S3 bucket name (3 to 63 lowercase letters, digits, '-' and '.').")
        }
        guard prefix.utf8.count <= Self.maxPrefixLength, !prefix.hasPrefix("/"), !prefix.contains(".."),
            prefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "/-_.".contains($0)) })
        else {
            throw S3Error(.invalidSettings, "The S3 prefix takes letters, digits and '/-_.', up to \(Self.maxPrefixLength), no leading '/' nor '..'.")
        }
        guard !region.isEmpty, region.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
            throw S3Error(.invalidSettings, "'\(region)' is no S3 region name.")
        }
        guard !accessKey.isEmpty, !secretKey.isEmpty else {
            throw S3Error(.invalidSettings, "S3 needs an access key and a secret key.")
        }
        self.endpoint = url
        self.region = region
        self.bucket = bucket
        self.prefix = prefix
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.pathStyle = pathStyle
    }

    /// The `Host` of requests: the endpoint's, with the bucket in front unless path-style.
    var host: String {
        let name = endpoint.host ?? ""
        let authority = endpoint.port.map { "\(name):\($0)" } ?? name
        return pathStyle ? authority : "\(bucket).\(authority)"
    }

    /// The encoded path of the object named `key` (the prefix put in front).
    func path(ofKey key: String) -> String {
        let object = SigV4.encode(path: prefix + key)
        return pathStyle ? "/\(bucket)/\(object)" : "/\(object)"
    }

    /// The URL of a path (with its query) at the store.
    func url(path: String, query: String) -> String {
        "\(endpoint.scheme ?? "https")://\(host)\(path)\(query.isEmpty ? "" : "?" + query)"
    }
}
