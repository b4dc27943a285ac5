public import Hummingbird

/// The error a cloud function throws to answer its caller with a code and message of its own:
/// `throw CloudError(code: 123, message: "Not enough credit", status: .paymentRequired)`.
public struct CloudError: Error, Sendable, Hashable {
    /// The LeanCloud-style code the client sees (default 1).
    public var code: Int
    /// The message the client sees.
    public var message: String
    /// The HTTP status (default 400).
    public var status: HTTPResponse.Status

    /// Creates an error for the caller.
    public init(code: Int = 1, message: String, status: HTTPResponse.Status = .badRequest) {
        self.code = code
        self.message = message
        self.status = status
    }
}
