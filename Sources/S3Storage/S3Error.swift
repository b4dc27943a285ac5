/// Why the object store did not do what was asked: the S3 module's one error type. The file
/// store maps it to the data layer's (`S3FileStore`), and the host maps that to HTTP.
public struct S3Error: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: Sendable, Equatable {
        /// The settings can't be used (an endpoint that is no URL, a bucket name S3 refuses).
        case invalidSettings
        /// The store refused the credentials or the signature (`InvalidAccessKeyId`,
        /// `SignatureDoesNotMatch`, `AccessDenied`).
        case refused
        /// The bucket does not exist.
        case noSuchBucket
        /// The store could not be reached, or did not answer in time.
        case unreachable
        /// Any other answer the store should not have given.
        case unexpected
    }

    /// The kind.
    public var kind: Kind
    /// What happened, for the operator: S3's error code and message when it sent them.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
