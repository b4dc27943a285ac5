import DataAPI
public import Hummingbird
public import JSON
import NIOCore

/// A JSON body with a status, written with our own serializer (LeanCloud's `__type` values
/// and integer/double distinction survive exactly).
public struct JSONResponse: ResponseGenerator, Sendable {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// The body.
    public var body: JSONValue
    /// Extra headers (`Location` on creation).
    public var headers: HTTPFields

    /// Creates a JSON response.
    public init(status: HTTPResponse.Status = .ok, _ body: JSONValue, headers: HTTPFields = [:]) {
        self.status = status
        self.body = body
        self.headers = headers
    }

    /// The response.
    public var response: Response {
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.jsonBytes)))
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        // The dialects' edge reshapes this answer from the value, not from the bytes.
        Self.dialectHandoff(in: context)?.keep(answer: body)
        return response
    }

    /// The host's context's dialect handoff, read in place: `context as? HostRequestContext`
    /// copied the whole context (a dozen references) for every answer to look at one field.
    private static func dialectHandoff<Context: RequestContext>(in context: Context) -> DialectHandoff? {
        guard Context.self == HostRequestContext.self else { return nil }
        return withUnsafePointer(to: context) { pointer in
            UnsafeRawPointer(pointer).assumingMemoryBound(to: HostRequestContext.self).pointee.dialectHandoff
        }
    }
}
