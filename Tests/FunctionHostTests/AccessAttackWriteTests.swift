import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 22's attacks through writes: a conditional write's `where` as a 200-or-305 oracle, a
/// write-only object's hidden values in a write's answer, and files deleted by any client.
@Suite struct AccessAttackWriteTests {
    typealias A = AccessAttack

    static func conditional(_ path: String, _ whereJSON: String, fetch: Bool = false) -> String {
        path + "?" + (fetch ? "fetchWhenSave=true&" : "") + "where=" + encode(whereJSON)
    }

    /// The `where` of bob's update of his own object may not read what a query may not: a
    /// subquery over session tokens, a hidden field of his own user, an internal class.
    @Test func aConditionalWritesWhereIsNoOracle() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            let probe = try await api.create("Probe", ["name": "ada", "n": 0], headers: people.bobSession)
            let path = "/1.1/classes/Probe/\(probe)"
            let prefix = String(people.adaToken.prefix(8))
            func byToken(_ prefix: String) -> String {
                A.select("name", A.subquery("_User", #"{"sessionToken":{"$regex":"^\#(prefix)"}}"#), key: "username")
            }
            // The oracle is live: the right prefix applies the update, a wrong one answers 305.
            let right = try await api.put(Self.conditional(path, byToken(prefix)), headers: Headers.master, ["n": op("Increment")])
            #expect(right.status == .ok, "master precondition: \(right)")
            expectError(try await api.put(Self.conditional(path, byToken("~~~")), headers: Headers.master, ["n": 1]), code: 305)
            // Updates first: today a matching guess applies them and a matching delete would
            // remove the probe, hiding what the later attempts answer.
            let guesses = ["~~~", prefix]
            for guess in guesses {
                for headers in [people.bobSession, Headers.client] {
                    let update = try await api.put(Self.conditional(path, byToken(guess)), headers: headers, ["n": op("Increment")])
                    A.expectForbiddenField(update, "sessionToken", "update where, guess \(guess)")
                }
            }
            // A hidden field of the caller's own user is no more queryable.
            let me = "/1.1/classes/_User/\(people.bob)"
            for (condition, field) in [
                (#"{"password":{"$exists":true}}"#, "password"), (#"{"sessionToken":{"$regex":"^"}}"#, "sessionToken"),
            ] {
                #expect(try await api.put(Self.conditional(me, condition), headers: Headers.master, ["x": 1]).status == .ok)
                A.expectForbiddenField(
                    try await api.put(Self.conditional(me, condition), headers: people.bobSession, ["x": 2]), field, condition)
            }
            // Nor is an internal class.
            _ = try await api.create("_Outbox", ["to": "ada"], headers: Headers.master)
            let outbox = A.select("name", A.subquery("_Outbox"), key: "to")
            #expect(try await api.put(Self.conditional(path, outbox), headers: Headers.master, ["n": 5]).status == .ok)
            A.expectInternalRefused(try await api.put(Self.conditional(path, outbox), headers: people.bobSession, ["n": 6]))
            A.expectInternalRefused(try await api.delete(Self.conditional(path, outbox), headers: people.bobSession))
            for guess in guesses {
                for headers in [people.bobSession, Headers.client] {
                    let delete = try await api.delete(Self.conditional(path, byToken(guess)), headers: headers)
                    A.expectForbiddenField(delete, "sessionToken", "delete where, guess \(guess)")
                }
            }
            // Refused writes changed nothing; the object is still there.
            #expect(try await api.fetch("Probe", probe)["n"] == 5)
        }
    }

    /// On a write-only object (public write, owner read) a condition would read the hidden
    /// object: refused before the condition is looked at, whether it matches or not.
    @Test func aConditionalWriteNeedsReadAccess() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            let acl: JSONValue = ["*": ["write": true], .init(stringLiteral: people.ada): ["read": true, "write": true]]
            let doc = try await api.create("Doc", ["pin": 1234, "ACL": acl], headers: people.adaSession)
            let path = "/1.1/classes/Doc/\(doc)"
            #expect(try await api.get(path, headers: people.bobSession).text == "{}", "bob can't read it")
            // The condition is live: with the master key a wrong guess is 305.
            expectError(try await api.put(Self.conditional(path, #"{"pin":9999}"#), headers: Headers.master, ["x": 1]), code: 305)
            // Unmatched conditions first, so that a delete today's main applies comes last.
            let conditions = [#"{"pin":9999}"#, #"{"pin":1234}"#, #"{"pin":{"$gt":1000}}"#]
            for condition in conditions {
                for headers in [people.bobSession, Headers.client] {
                    let update = try await api.put(Self.conditional(path, condition), headers: headers, ["touched": true])
                    A.expectConditionalWriteRefused(update, "update where \(condition)")
                }
            }
            // Ada, who reads it, still writes conditionally; bob still writes unconditionally:
            // the refusal is of the condition, not of the write.
            let own = try await api.put(Self.conditional(path, #"{"pin":1234}"#), headers: people.adaSession, ["seen": true])
            #expect(own.status == .ok, "\(own)")
            #expect(try await api.put(path, headers: people.bobSession, ["scribble": "bob"]).status == .ok)
            for condition in conditions {
                for headers in [people.bobSession, Headers.client] {
                    let delete = try await api.delete(Self.conditional(path, condition), headers: headers)
                    A.expectConditionalWriteRefused(delete, "delete where \(condition)")
                }
            }
            let stored = try await api.fetch("Doc", doc, headers: Headers.master)
            #expect(stored["pin"] == 1234 && stored["touched"] == nil, "refused writes changed it: \(stored)")
        }
    }

    /// The answer to a write on a write-only object holds only what the writer sent as
    /// literal values (and the id and dates): no increment result, no other field, even with
    /// fetchWhenSave; the same for a create the creator can't read.
    @Test func aWriteOnlyObjectsValuesAreNotAnsweredToItsWriter() async throws {
        try await TestServer.run { api in
            let people = try await A.people(api)
            let acl: JSONValue = ["*": ["write": true], .init(stringLiteral: people.ada): ["read": true, "write": true]]
            let counter = try await api.create("Counter", ["n": 5, "secret": "s3cr3t", "ACL": acl], headers: people.adaSession)
            let path = "/1.1/classes/Counter/\(counter)"
            let body: JSONValue = ["n": op("Increment"), "note": "hi"]
            var answers: [(String, JSONValue?)] = []
            for suffix in ["?fetchWhenSave=true", ""] {
                let reply = try await api.put(path + suffix, headers: people.bobSession, body)
                #expect(reply.status == .ok, "\(reply)")
                answers.append(("PUT\(suffix)", reply.json))
            }
            let batch = try await api.post(
                "/1.1/batch", headers: people.bobSession,
                ["requests": [["method": "PUT", "path": .string(path + "?fetchWhenSave=true"), "body": body]]])
            answers.append(("batch", batch.json?.arrayValue?.first?["success"]))
            let allowed: Set<String> = ["objectId", "updatedAt", "createdAt", "note"]
            for (route, answer) in answers {
                #expect(answer != nil, "\(route) answered no success")
                #expect(fieldNames(answer).isSubset(of: allowed), "\(route) answers \(fieldNames(answer).subtracting(allowed).sorted())")
                #expect(answer?["note"] == nil || answer?["note"] == "hi", "\(route): \(String(describing: answer))")
            }
            // The increments happened: the refusal is of the answer, not of the write.
            #expect(try await api.fetch("Counter", counter, headers: Headers.master)["n"] == 8, "master precondition")

            // Creating an object its creator can't read.
            let created = try await api.post(
                "/1.1/classes/Counter?fetchWhenSave=true", headers: people.bobSession,
                ["n": op("Increment", ["amount": 3]), "label": "bob's", "ACL": acl])
            #expect(created.status == .created, "\(created)")
            let createAllowed: Set<String> = ["objectId", "createdAt", "updatedAt", "label", "ACL"]
            #expect(
                fieldNames(created.json).isSubset(of: createAllowed),
                "create answers \(fieldNames(created.json).subtracting(createAllowed).sorted()): \(created)")
            let id = try #require(created.objectId)
            #expect(try await api.fetch("Counter", id, headers: Headers.master)["n"] == 3, "master precondition")
        }
    }

    /// Deleting a file is closed to clients by default, even to its uploader, on both routes
    /// and in a batch; the master key deletes.
    @Test func clientsCantDeleteFilesByDefault() async throws {
        try await FileFixture.run { api, _ in
            let people = try await A.people(api)
            let file = try await FileFixture.upload(api, "bob.txt", "bob's bytes", headers: people.bobSession)
            let id = try #require(file["objectId"]?.stringValue, "\(file)")
            for headers in [people.bobSession, people.adaSession, Headers.client] {
                for path in ["/1.1/files/\(id)", "/1.1/classes/_File/\(id)"] {
                    A.expectDeleteRefusedByClass(try await api.delete(path, headers: headers), path)
                }
            }
            let batch = try await api.post(
                "/1.1/batch", headers: people.bobSession,
                ["requests": [["method": "DELETE", "path": .string("/1.1/files/\(id)")]]])
            let expected: JSONValue = ["code": 403, "error": "Forbidden to delete by class permissions."]
            #expect(batch.json?.arrayValue?.first?["error"] == expected, "\(batch)")
            #expect(try await api.get("/1.1/files/\(id)", headers: people.bobSession).status == .ok, "the file is still there")
            #expect(try await api.delete("/1.1/files/\(id)", headers: Headers.master).status == .ok)
            expectError(try await api.get("/1.1/files/\(id)", headers: Headers.master), code: 101, status: .notFound)
        }
    }
}
