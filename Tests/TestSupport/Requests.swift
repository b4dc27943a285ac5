import DataAPI
import Foundation
package import HTTPTypes
package import JSON
import Testing

extension Headers {
    /// The client key with a user's session token.
    package static func session(_ token: String) -> HTTPFields {
        var headers = Headers.client
        headers[HTTPField.Name("X-LC-Session")!] = token
        return headers
    }

    /// The client key, calling the staging environment's functions (`X-LC-Prod: 0`).
    package static let staging: HTTPFields = {
        var headers = Headers.client
        headers[HTTPField.Name("X-LC-Prod")!] = "0"
        return headers
    }()

    /// The master key, calling the staging environment's functions.
    package static let masterStaging: HTTPFields = {
        var headers = Headers.master
        headers[HTTPField.Name("X-LC-Prod")!] = "0"
        return headers
    }()
}

/// The messages a server without a message webhook keeps in `_Outbox`: codes and links the
/// tests read back as a user would from their phone or mailbox.
package enum Outbox {
    /// The messages sent to an address or number, newest first.
    package static func messages(_ api: API, to: String) async throws -> [JSONValue] {
        let reply = try await api.find(
            "_Outbox", ["where": #"{"to":"\#(to)"}"#, "order": "-createdAt"], headers: Headers.master)
        if reply.status == .notFound { return [] }
        #expect(reply.status == .ok, "\(reply)")
        return reply.results
    }

    /// The newest SMS code sent to a number.
    package static func lastCode(_ api: API, to phone: String) async throws -> String {
        try #require(try await messages(api, to: phone).first?["smsCode"]?.stringValue, "no code sent to \(phone)")
    }

    /// The path of the newest link emailed to an address.
    package static func lastLinkPath(_ api: API, to email: String) async throws -> String {
        let link = try #require(try await messages(api, to: email).first?["link"]?.stringValue, "no link sent to \(email)")
        let url = try #require(URL(string: link))
        return url.path
    }
}
