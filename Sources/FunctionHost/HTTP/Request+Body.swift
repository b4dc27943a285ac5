import DataAPI
import Foundation
import Hummingbird

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

    /// The body as JSON, or nil when it is empty.
    mutating func json(context: HostRequestContext) async throws -> JSONValue? {
        let buffer = try await collectBody(upTo: context.bodyLimit)
        if buffer.readableBytes == 0 { return nil }
        return try JSONValue(parsing: buffer.readableBytesView)
    }

    /// The query string's parameters, decoded as forms are (`+` is a space, `%xx` a byte).
    var queryParameters: [String: String] {
        guard let query = uri.query, !query.isEmpty else { return [:] }
        var parameters: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.formDecode(parts[0])
            parameters[key] = parts.count > 1 ? Self.formDecode(parts[1]) : ""
        }
        return parameters
    }

    private static func formDecode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
