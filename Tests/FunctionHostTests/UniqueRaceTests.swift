import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 30, finding 11: concurrent writes of one username, email, phone number or role name
/// make one object, and the others get LeanCloud's code for a taken value, never a 500. Each
/// test runs rounds of concurrent requests; a database constraint decides, not the check the
/// service makes before writing.
@Suite struct UniqueRaceTests {
    static let rounds = 5
    static let concurrent = 10

    /// A unique `_User` field, a value of it for a round, and its code.
    struct UserField: Sendable, CustomTestStringConvertible {
        let name: String
        let code: Int64
        let value: @Sendable (Int) -> String
        var testDescription: String { name }
    }

    static let userFields: [UserField] = [
        UserField(name: "username", code: 202, value: { "racer\($0)" }),
        UserField(name: "email", code: 203, value: { "racer\($0)@example.com" }),
        UserField(name: "mobilePhoneNumber", code: 214, value: { "1390000100\($0)" }),
    ]

    /// Checks one round's codes: one success, every other one the taken value's code.
    static func expectOneWinner(_ codes: [Int64], taken code: Int64, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(codes.filter { $0 == 0 }.count == 1, "\(what): \(codes)", sourceLocation: sourceLocation)
        #expect(codes.allSatisfy { $0 == 0 || $0 == code }, "\(what): \(codes)", sourceLocation: sourceLocation)
    }

    /// How many users hold `value` in `field`, by the master key.
    static func holders(_ api: API, _ field: String, _ value: String) async throws -> Int {
        let reply = try await api.get(
            "/1.1/users" + queryString(["where": JSONValue.object([field: .string(value)]).jsonString, "count": "1", "limit": "0"]),
            headers: Headers.master)
        return try #require(reply["count"]?.intValue.map(Int.init), "\(reply)")
    }

    @Test(arguments: userFields)
    func concurrentSignupsWithOneValueMakeOneUser(field: UserField) async throws {
        try await TestServer.run { api in
            for round in 0..<Self.rounds {
                let value = field.value(round)
                let requests = (0..<Self.concurrent).map { index in
                    // Clients signing up, and the master key creating users without a password
                    // (no hashing to space the requests out: the window between check and insert
                    // stays open).
                    var body: [String: JSONValue] = ["username": .string("r\(round)-\(index)")]
                    if index % 2 == 1 { body["password"] = "pw" }
                    body[field.name] = .string(value)
                    return ConcurrentRequests.Request(
                        api: api, path: "/1.1/users", headers: index % 2 == 0 ? Headers.master : Headers.client, body: .object(body))
                }
                Self.expectOneWinner(try await ConcurrentRequests.codes(requests), taken: field.code, "round \(round)")
                #expect(try await Self.holders(api, field.name, value) == 1, "round \(round)")
            }
        }
    }

    /// The update path: users changing their own field to one value at once.
    @Test(arguments: userFields)
    func concurrentChangesToOneValueLeaveOneHolder(field: UserField) async throws {
        try await TestServer.run { api in
            var users: [(id: String, session: HTTPFields)] = []
            for index in 0..<Self.concurrent {
                let reply = try await api.post("/1.1/users", ["username": .string("u\(index)"), "password": "pw"])
                users.append((try #require(reply.objectId), Headers.session(try #require(reply["sessionToken"]?.stringValue))))
            }
            for round in 0..<Self.rounds {
                let value = "changed-" + field.value(round)
                let requests = users.map { user in
                    ConcurrentRequests.Request(
                        api: api, method: .put, path: "/1.1/users/\(user.id)", headers: user.session,
                        body: .object([field.name: .string(value)]))
                }
                Self.expectOneWinner(try await ConcurrentRequests.codes(requests), taken: field.code, "round \(round)")
                #expect(try await Self.holders(api, field.name, value) == 1, "round \(round)")
            }
        }
    }

    @Test func concurrentRolesOfOneNameMakeOneRole() async throws {
        try await TestServer.run { api in
            let people = try await ACLTests.people(api)
            for round in 0..<Self.rounds {
                let name = "Admins\(round)"
                let requests = (0..<Self.concurrent).map { index in
                    // Signed-in clients and the master key alike.
                    ConcurrentRequests.Request(
                        api: api, path: index % 2 == 0 ? "/1.1/roles" : "/1.1/classes/_Role",
                        headers: index % 3 == 0 ? Headers.master : people.bobSession,
                        body: RoleClientTests.role(name, acl: .object([people.bob: ["read": true, "write": true]])))
                }
                Self.expectOneWinner(try await ConcurrentRequests.codes(requests), taken: 137, "round \(round)")
                let named = try await api.find("_Role", ["where": #"{"name":"\#(name)"}"#], headers: Headers.master)
                #expect(named.results.count == 1, "round \(round): \(named)")
            }
        }
    }
}
