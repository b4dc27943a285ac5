/// Why a thumbnail was not made. The host answers each kind with Qiniu's status (400 for what
/// the request or the image is, 503 for what the server can't do now) and `{"code","error"}`.
public struct ThumbnailError: Error, Sendable, Equatable {
    /// The kinds of failure.
    public enum Kind: Sendable, Equatable {
        /// The `imageView` parameters are malformed or out of range.
        case badParameters
        /// The file is no image this server reads (or its pixels are corrupt).
        case notAnImage
        /// The original is over the bytes or pixels a thumbnail is made from.
        case imageTooLarge
        /// The asked thumbnail is over the largest one made.
        case thumbnailTooLarge
        /// Every slot was busy for longer than the wait allowed.
        case busy
        /// Making it took longer than its time budget.
        case timedOut
        /// The server's own disk failed (the operator's business).
        case storage
    }

    /// The kind.
    public var kind: Kind
    /// The message for the client.
    public var message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}
