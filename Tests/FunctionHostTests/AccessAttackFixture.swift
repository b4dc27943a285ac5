import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// What the access-attack suites share: a victim and an attacker who both hold only the app id
/// and key (and their own sessions), and checks of the exact refusals issue 22 asks for.
enum AccessAttack {
    /// The victim (ada) and the attacker (bob), signed up as any app user signs up.
    struct People {
        let ada: String
        let bob: String
        /// Ada's session token: what the subquery oracle recovers.
        let adaToken: String
        let adaSession: HTTPFields
        let bobSession: HTTPFields
    }

    /// Signs ada and bob up through `POST /1.1/users` with the client key; `adaFields` are
    /// more fields of ada's signup (email, phone number).
    static func people(_ api: API, adaFields: [String: JSONValue] = [:]) async throws -> People {
        var adaBody: [String: JSONValue] = ["username": "ada", "password": "pw-ada"]
        adaBody.merge(adaFields) { _, new in new }
        let ada = try await api.post("/1.1/users", .object(adaBody))
        #expect(ada.status == .created, "ada's signup: \(ada)")
        let bob = try await api.post("/1.1/users", ["username": "bob", "password": "pw-bob"])
        #expect(bob.status == .created, "bob's signup: \(bob)")
        let adaToken = try #require(ada["sessionToken"]?.stringValue, "\(ada)")
        return People(
            ada: try #require(ada.objectId), bob: try #require(bob.objectId), adaToken: adaToken,
            adaSession: Headers.session(adaToken),
            bobSession: Headers.session(try #require(bob["sessionToken"]?.stringValue, "\(bob)")))
    }

    /// The answer to a hidden field in a query: 403 `{"code":119,"error":"Forbidden to query the field <name>."}`.
    static func expectForbiddenField(
        _ reply: Reply, _ field: String, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected: JSONValue = ["code": 119, "error": .string("Forbidden to query the field \(field).")]
        #expect(
            reply.status == .forbidden && reply.json == expected, "\(context) should be refused for \(field): \(reply)",
            sourceLocation: sourceLocation)
    }

    /// The answer to an internal class named by a client: 403, code 119 (the message is the
    /// top level's own, which the spec doesn't fix).
    static func expectInternalRefused(
        _ reply: Reply, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            reply.status == .forbidden && reply["code"] == 119 && fieldNames(reply.json) == ["code", "error"],
            "\(context) should be refused (403/119): \(reply)", sourceLocation: sourceLocation)
    }

    /// The answer to a conditional write on an object the caller can't read.
    static func expectConditionalWriteRefused(
        _ reply: Reply, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected: JSONValue = ["code": 119, "error": "A conditional write needs read access to the object."]
        #expect(
            reply.status == .forbidden && reply.json == expected, "\(context): \(reply)", sourceLocation: sourceLocation)
    }

    /// The answer to a `_File` delete the class permissions refuse.
    static func expectDeleteRefusedByClass(
        _ reply: Reply, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected: JSONValue = ["code": 403, "error": "Forbidden to delete by class permissions."]
        #expect(
            reply.status == .forbidden && reply.json == expected, "\(context): \(reply)", sourceLocation: sourceLocation)
    }

    /// The ids of a query's results as `headers` asks it, expecting 200, with its `count`
    /// (asked for with `count=1`), sorted.
    static func ids(
        _ api: API, _ className: String, where whereJSON: String, headers: HTTPFields,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (ids: [String], count: Int64?) {
        let reply = try await api.find(className, ["where": whereJSON, "count": "1"], headers: headers)
        #expect(reply.status == .ok, "\(className) where \(whereJSON): \(reply)", sourceLocation: sourceLocation)
        return (reply.results.compactMap { $0["objectId"]?.stringValue }.sorted(), reply["count"]?.intValue)
    }

    /// `{"className": C, "where": W}` as a subquery's JSON text.
    static func subquery(_ className: String, _ whereJSON: String = "{}") -> String {
        #"{"className":"\#(className)","where":\#(whereJSON)}"#
    }

    /// `{field: {"$select" (or "$dontSelect"): {"query": Q, "key": K}}}` as JSON text.
    static func select(_ field: String, _ query: String, key: String, negated: Bool = false) -> String {
        #"{"\#(field)":{"\#(negated ? "$dontSelect" : "$select")":{"query":\#(query),"key":"\#(key)"}}}"#
    }

    /// `{field: {"$inQuery" (or "$notInQuery"): Q}}` as JSON text.
    static func inQuery(_ field: String, _ query: String, negated: Bool = false) -> String {
        #"{"\#(field)":{"\#(negated ? "$notInQuery" : "$inQuery")":\#(query)}}"#
    }

    /// The fields `_User` keeps private to the user itself (and the master key) by default.
    static let userPrivateFields = ["authData", "email", "mobilePhoneNumber", "emailVerified", "mobilePhoneVerified"]

    /// The fields no client is ever answered.
    static let alwaysHiddenUserFields = ["password", "sessionToken", "salt", "_failedLogins", "_loginAttempts"]
}
