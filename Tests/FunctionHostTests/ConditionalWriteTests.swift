import DataAPI
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

@testable import FunctionHost

/// Updates and deletes guarded by a `where` condition: 305 when it doesn't match, and nothing
/// changes.
@Suite struct ConditionalWriteTests {
    static func whereParameter(_ json: String) -> String { "where=" + encode(json) }

    @Test(arguments: ["1.1", "1"])
    func unmatchedConditionalUpdateIs305AndChangesNothing(prefix: String) async throws {
        try await TestServer.run { api in
            let id = try await api.create("Account", ["balance": 50, "owner": "ada"])
            let before = try await api.fetch("Account", id)
            let reply = try await api.put(
                "/\(prefix)/classes/Account/\(id)?" + Self.whereParameter(#"{"balance":{"$gte":60}}"#),
                ["balance": op("Decrement", ["amount": 60]), "owner": "bob"])
            expectError(reply, code: 305)
            #expect(try await api.fetch("Account", id) == before)
        }
    }

    @Test(arguments: ["1.1", "1"])
    func matchedConditionalUpdateIsApplied(prefix: String) async throws {
        try await TestServer.run { api in
            let id = try await api.create("Account", ["balance": 100, "owner": "ada"])
            let reply = try await api.put(
                "/\(prefix)/classes/Account/\(id)?fetchWhenSave=true&" + Self.whereParameter(#"{"balance":{"$gte":60}}"#),
                ["balance": op("Decrement", ["amount": 60])])
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply["balance"] == 40)
            #expect(try await api.fetch("Account", id)["balance"] == 40)

            // The same guard now fails: the balance can't go negative.
            let second = try await api.put(
                "/\(prefix)/classes/Account/\(id)?" + Self.whereParameter(#"{"balance":{"$gte":60}}"#),
                ["balance": op("Decrement", ["amount": 60])])
            expectError(second, code: 305)
            #expect(try await api.fetch("Account", id)["balance"] == 40)
        }
    }

    @Test func conditionCanNameOtherFieldsAndOperators() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Doc", ["state": "draft", "version": 3, "tags": ["a", "b"]])
            let conditions: [(String, Bool)] = [
                (#"{"state":"draft"}"#, true),
                (#"{"state":"published"}"#, false),
                (#"{"state":{"$in":["draft","review"]}}"#, true),
                (#"{"tags":"b"}"#, true),
                (#"{"tags":"z"}"#, false),
                (#"{"version":3,"state":{"$ne":"draft"}}"#, false),
                (#"{"$or":[{"version":4},{"state":"draft"}]}"#, true),
                (#"{"missing":{"$exists":true}}"#, false),
                (#"{"objectId":"\#(id)"}"#, true),
            ]
            var expectedVersion: Int64 = 3
            for (condition, matches) in conditions {
                let reply = try await api.put(
                    "/1.1/classes/Doc/\(id)?" + Self.whereParameter(condition), ["version": op("Increment")])
                if matches {
                    #expect(reply.status == .ok, "\(condition): \(reply)")
                    expectedVersion += 1
                } else {
                    expectError(reply, code: 305)
                }
                #expect(try await api.fetch("Doc", id)["version"] == .int(expectedVersion), "after \(condition)")
            }
        }
    }

    @Test func unmatchedConditionalDeleteIs305AndKeepsTheObject() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Doc", ["state": "published"])
            let reply = try await api.delete("/1.1/classes/Doc/\(id)?" + Self.whereParameter(#"{"state":"draft"}"#))
            expectError(reply, code: 305)
            #expect(try await api.fetch("Doc", id)["state"] == "published")
        }
    }

    @Test(arguments: ["1.1", "1"])
    func matchedConditionalDeleteDeletes(prefix: String) async throws {
        try await TestServer.run { api in
            let id = try await api.create("Doc", ["state": "draft"])
            let keep = try await api.create("Doc", ["state": "draft"])
            let reply = try await api.delete(
                "/\(prefix)/classes/Doc/\(id)?" + Self.whereParameter(#"{"state":"draft"}"#))
            #expect(reply.status == .ok, "\(reply)")
            #expect(reply.text == "{}")
            #expect(try await api.get("/1.1/classes/Doc/\(id)").text == "{}")
            #expect(try await api.fetch("Doc", keep)["state"] == "draft")
        }
    }

    @Test func conditionalDeleteOfAMissingObjectIs305() async throws {
        try await TestServer.run { api in
            _ = try await api.create("Doc", ["state": "draft"])
            let reply = try await api.delete(
                "/1.1/classes/Doc/000000000000000000000000?" + Self.whereParameter(#"{"state":"draft"}"#))
            expectError(reply, code: 305)
            #expect(try await api.count("Doc") == 1)
        }
    }

    @Test func conditionalUpdateOfAMissingObjectIs101() async throws {
        try await TestServer.run { api in
            _ = try await api.create("Doc", ["state": "draft"])
            let reply = try await api.put(
                "/1.1/classes/Doc/000000000000000000000000?" + Self.whereParameter(#"{"state":"draft"}"#),
                ["state": "x"])
            expectError(reply, code: 101, status: .notFound)
        }
    }

    @Test(arguments: [
        #"{"state":"#, #"not json"#, #"[1,2]"#, #"{"state":{"$bogus":1}}"#, #"{"a-b":1}"#,
        #"{"state":{"$in":"draft"}}"#,
    ])
    func invalidConditionIs102AndChangesNothing(condition: String) async throws {
        try await TestServer.run { api in
            let id = try await api.create("Doc", ["state": "draft"])
            let update = try await api.put("/1.1/classes/Doc/\(id)?" + Self.whereParameter(condition), ["state": "x"])
            expectError(update, code: 102, status: .badRequest)
            let delete = try await api.delete("/1.1/classes/Doc/\(id)?" + Self.whereParameter(condition))
            expectError(delete, code: 102, status: .badRequest)
            #expect(try await api.fetch("Doc", id)["state"] == "draft")
        }
    }

    @Test func anEmptyConditionIsNoCondition() async throws {
        try await TestServer.run { api in
            let id = try await api.create("Doc", ["state": "draft"])
            let reply = try await api.put("/1.1/classes/Doc/\(id)?where=", ["state": "x"])
            #expect(reply.status == .ok, "\(reply)")
            #expect(try await api.fetch("Doc", id)["state"] == "x")
        }
    }
}
