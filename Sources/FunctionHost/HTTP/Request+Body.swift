import DataAPI
import Foundation
import Hummingbird
import JSON
import NIOCore

extension Request {
    /// The body as a JSON object; an empty body is an empty object.
    ///
    /// - Throws: 107 for malformed JSON or a body that isn't an object.
    mutating func jsonObject(context: HostRequestContext) async throws -> [String: JSONValue] {
        let value = try await json(context: context)
        guard case .object(let members) = value ?? .object([:]) else {
            throw DataAPIError(.malformedJSON, "The request body must be a JSON object.")
        }
        return members
    }

    /// The body as JSON, or nil when it is empty. A dialect request's body was parsed and
    /// translated at the edge: it is that value, not parsed again.
    mutating func json(context: HostRequestContext) async throws -> JSONValue? {
        if let handoff = context.dialectHandoff { return handoff.body }
        return try Self.json(in: try await collectBody(upTo: context.bodyLimit))
    }

    /// The body as JSON, as `json(context:)` reads it, for a route that reads the body only here:
    /// the request is not copied to keep what was read (a copy is a dozen references counted).
    func jsonReadOnce(context: HostRequestContext) async throws -> JSONValue? {
        if let handoff = context.dialectHandoff { return handoff.body }
        return try Self.json(in: try await body.collect(upTo: context.bodyLimit))
    }

    /// `buffer` as JSON, or nil when it is empty.
    private static func json(in buffer: ByteBuffer) throws -> JSONValue? {
        if buffer.readableBytes == 0 { return nil }
        return try JSONValue(parsing: buffer.readableBytesView)
    }

    /// The query string's parameters, decoded as forms are (`+` is a space, `%xx` a byte).
    var queryParameters: [String: String] {
        Self.formParameters(uri.query ?? "")
    }

    /// The parameters of a query string (`a=1&b=x%20y`), as `/batch` paths carry them too.
    static func formParameters(_ query: some StringProtocol) -> [String: String] {
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            parameters[formDecode(parts[0])] = parts.count > 1 ? formDecode(parts[1]) : ""
        }
        return parameters
    }

    private static func formDecode(_ text: some StringProtocol) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
