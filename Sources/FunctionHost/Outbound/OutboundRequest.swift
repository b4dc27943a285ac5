/// An HTTP request cloud code wants to send.
public struct OutboundRequest: Sendable {
    /// The largest request body accepted: 10 MB.
    public static let maxBodySize = 10 * 1024 * 1024

    /// The absolute http or https URL.
    public var url: String
    /// The method (`GET`, `POST`, ...; letter case doesn't matter).
    public var method: String
    /// The header fields, in order; a name may repeat.
    public var headers: [(String, String)]
    /// The body, if any.
    public var body: [UInt8]?

    /// Creates a request.
    public init(url: String, method: String = "GET", headers: [(String, String)] = [], body: [UInt8]? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}

extension OutboundRequest {
    /// Headers the host sets itself and silently drops from the script's request, as `fetch`
    /// does with its forbidden names: framing and connection management belong to the client,
    /// `Host` must match the checked URL, and `Accept-Encoding` would bring compressed bodies
    /// nothing here decompresses.
    static let droppedHeaders: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "te", "trailer",
        "expect", "proxy-connection", "accept-encoding",
    ]

    /// The request with the method upper-cased and the dropped headers removed.
    ///
    /// - Throws: `invalidRequest` for a method or header that is not valid HTTP, a body over
    ///   `maxBodySize`, or a body on GET or HEAD.
    func checked() throws(OutboundHTTPError) -> OutboundRequest {
        var request = self
        request.method = method.uppercased()
        guard Self.isToken(request.method) else { throw .invalidRequest("'\(method)' is not an HTTP method") }
        guard !["CONNECT", "TRACE", "TRACK"].contains(request.method) else {
            throw .invalidRequest("the \(request.method) method is not allowed")
        }
        if let body, body.count > Self.maxBodySize {
            throw .invalidRequest("the body is larger than \(Self.maxBodySize) bytes")
        }
        if let body, !body.isEmpty, request.method == "GET" || request.method == "HEAD" {
            throw .invalidRequest("a \(request.method) request can't have a body")
        }
        var headers: [(String, String)] = []
        for (name, value) in self.headers {
            guard Self.isToken(name) else { throw .invalidRequest("'\(name)' is not a header name") }
            guard !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                throw .invalidRequest("the value of header '\(name)' contains a line break")
            }
            if !Self.droppedHeaders.contains(name.lowercased()) { headers.append((name, value)) }
        }
        request.headers = headers
        return request
    }

    /// Whether `text` is an HTTP token (RFC 9110 §5.6.2), what methods and header names are.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return true
                default:
                    return "!#$%&'*+-.^_`|~".utf8.contains(byte)
                }
            }
    }
}
