/// The answer to an outbound request, read in full.
public struct OutboundResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// The header fields, in order, as the server sent them.
    public var headers: [(String, String)]
    /// The body (at most the policy's `maxResponseSize` bytes).
    public var body: [UInt8]
    /// The URL that answered: the request's, or the last redirect's.
    public var url: String

    /// Creates a response.
    public init(status: Int, headers: [(String, String)], body: [UInt8], url: String) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The first value of a header (the name's letter case doesn't matter).
    public func header(_ name: String) -> String? {
        let name = name.lowercased()
        return headers.first { $0.0.lowercased() == name }?.1
    }
}
