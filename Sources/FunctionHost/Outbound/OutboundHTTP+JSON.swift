import DataAPI
import JSON

extension OutboundHTTP {
    /// The request as the sandbox bridge passes it, `{url, method?, headers?: {name: value},
    /// body?: string | null}`, answered `{status, headers: {name: value}, text, url}`.
    ///
    /// Response header names are lower-cased and repeated ones joined with `, ` (as `fetch`'s
    /// `Headers` does); the body is decoded as UTF-8, invalid bytes replaced.
    public func perform(
        arguments: JSONValue, policy: OutboundPolicy, deadline: ContinuousClock.Instant
    ) async throws(OutboundHTTPError) -> JSONValue {
        let request = try OutboundRequest(json: arguments)
        return try await send(request, policy: policy, deadline: deadline).json
    }
}

extension OutboundRequest {
    /// Reads `{url, method?, headers?, body?}`; header values may be strings, numbers or booleans.
    init(json: JSONValue) throws(OutboundHTTPError) {
        guard let url = json["url"]?.stringValue else { throw .invalidRequest("'url' must be a string") }
        var method = "GET"
        switch json["method"] {
        case nil, .null?: break
        case .string(let text)?: method = text
        default: throw .invalidRequest("'method' must be a string")
        }
        var headers: [(String, String)] = []
        switch json["headers"] {
        case nil, .null?: break
        case .object(let members)?:
            for name in members.keys.sorted() {
                switch members[name]! {
                case .string(let value): headers.append((name, value))
                case .int(let value): headers.append((name, String(value)))
                case .double(let value): headers.append((name, String(value)))
                case .bool(let value): headers.append((name, String(value)))
                default: throw .invalidRequest("the value of header '\(name)' must be a string")
                }
            }
        default: throw .invalidRequest("'headers' must be an object")
        }
        var body: [UInt8]?
        switch json["body"] {
        case nil, .null?: break
        case .string(let text)?: body = Array(text.utf8)
        default: throw .invalidRequest("'body' must be a string or null")
        }
        self.init(url: url, method: method, headers: headers, body: body)
    }
}

extension OutboundResponse {
    /// `{status, headers, text, url}`, as `perform(arguments:policy:deadline:)` answers.
    var json: JSONValue {
        var headers: [String: String] = [:]
        for (name, value) in self.headers {
            let name = name.lowercased()
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return .object([
            "status": .int(Int64(status)),
            "headers": .object(headers.mapValues { .string($0) }),
            "text": .string(String(decoding: body, as: UTF8.self)),
            "url": .string(url),
        ])
    }
}
