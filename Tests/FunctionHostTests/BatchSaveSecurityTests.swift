import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `POST /1.1/batch/save` through the same rules as the single-object routes: sign-up, ACLs,
/// users, roles, hooks, and bad input answered with 400 and nothing written.
@Suite struct BatchSaveSecurityTests {
    /// One `/1.1/users` sign-up item, as `-[LCUser signUp:]` sends it.
    static func signup(_ username: String, internalId: String) -> JSONValue {
        [
            "method": "POST", "path": "/1.1/users", "new": true,
            "body": ["username": .string(username), "password": "secret", "email": .string("\(username)@example.com"), "__internalId": .string(internalId)],
        ]
    }

    @Test func signupAnswersASessionThatWorks() async throws {
        try await TestServer.run { api in
            let reply = try await BatchSaveTests.save(api, [Self.signup("ann", internalId: "u1")])
            #expect(reply.status == .ok, "\(reply)")
            let entry = try #require(reply["u1"], "\(reply)")
            BatchSaveTests.expectCreated(entry)
            #expect(entry["password"] == nil, "\(entry)")
            let token = try #require(entry["sessionToken"]?.stringValue, "\(entry)")
            let me = try await api.get("/1.1/users/me", headers: Headers.session(token))
            #expect(me.status == .ok && me["username"] == "ann" && me["objectId"] == entry["objectId"], "\(me)")
            // The password was hashed like any signup's: logging in with it works.
            let login = try await api.post("/1.1/login", ["username": "ann", "password": "secret"])
            #expect(login.status == .ok, "\(login)")
            // The username is taken now, as POST /1.1/users would say.
            expectError(try await BatchSaveTests.save(api, [Self.signup("ann", internalId: "u2")]), code: 202)
            let stored = try await BatchSaveTests.stored(api, "_User", entry["objectId"]?.stringValue)
            #expect(stored["__internalId"] == nil && stored["password"] == nil, "\(stored)")
        }
    }

    @Test func anotherUsersObjectIsRefusedBeforeAnythingIsWritten() async throws {
        try await TestServer.run { api in
            let people = try await ACLTests.people(api)
            let note = try await api.create(
                "Note", ["text": "ada's", "ACL": .object([people.ada: ["read": true, "write": true]])],
                headers: people.adaSession)
            let reply = try await BatchSaveTests.save(
                api,
                [
                    ["method": "POST", "path": "/1.1/classes/Memo", "new": true, "body": ["text": "bob's", "__internalId": "m"]],
                    ["method": "PUT", "path": .string("/1.1/classes/Note/\(note)"), "body": ["text": "bob was here", "__internalId": .string(note)]],
                ], headers: people.bobSession)
            expectError(reply, code: 119, status: .forbidden)
            #expect(try await api.count("Memo") == nil, "the earlier item wasn't written")
            #expect(try await api.fetch("Note", note, headers: people.adaSession)["text"] == "ada's")

            // Another user is refused as PUT /1.1/users/{id} refuses it; one's own user is fine.
            let single = try await api.put("/1.1/users/\(people.ada)", headers: people.bobSession, ["nickname": "x"])
            let batch = try await BatchSaveTests.save(
                api, [["method": "PUT", "path": .string("/1.1/users/\(people.ada)"), "body": ["nickname": "x", "__internalId": .string(people.ada)]]],
                headers: people.bobSession)
            expectError(batch, code: single["code"]?.intValue ?? -1, status: single.status)
            let own = try await BatchSaveTests.save(
                api, [["method": "PUT", "path": .string("/1.1/users/\(people.bob)"), "body": ["nickname": "b", "__internalId": .string(people.bob)]]],
                headers: people.bobSession)
            #expect(own.status == .ok && own[people.bob]?["updatedAt"] != nil, "\(own)")
            // Nothing in the body picks who the call acts as.
            let spoofed = try await BatchSaveTests.save(
                api,
                [
                    [
                        "method": "PUT", "path": .string("/1.1/classes/Note/\(note)"),
                        "body": ["text": "x", "__internalId": .string(note), "sessionToken": "nope", "__ignore_hooks": ["beforeSave"]],
                    ]
                ], headers: people.bobSession)
            #expect(spoofed.status.code >= 400 && spoofed.status.code < 500, "\(spoofed)")
            #expect(try await api.fetch("Note", note, headers: people.adaSession)["text"] == "ada's")
        }
    }

    @Test func rolesAreSavedAsRolesRouteSavesThem() async throws {
        try await TestServer.run { api in
            let item: JSONValue = ["method": "POST", "path": "/1.1/roles", "new": true, "body": ["name": "editors", "__internalId": "r"]]
            // A client is refused by /roles and by batch/save alike.
            let single = try await api.post("/1.1/roles", ["name": "editors"])
            expectError(single, code: 119, status: .forbidden)
            expectError(try await BatchSaveTests.save(api, [item]), code: 119, status: .forbidden)
            // The master key creates it, and a second role of that name is refused (137).
            let master = try await BatchSaveTests.save(api, [item], headers: Headers.master)
            #expect(master.status == .ok, "\(master)")
            BatchSaveTests.expectCreated(master["r"])
            let role = try await api.get("/1.1/roles/\(master["r"]?["objectId"]?.stringValue ?? "")", headers: Headers.master)
            #expect(role["name"] == "editors" && role["__internalId"] == nil, "\(role)")
            expectError(try await BatchSaveTests.save(api, [item], headers: Headers.master), code: 137)
        }
    }

    @Test func aBeforeSaveRejectionFailsTheCall() async throws {
        var registry = FunctionRegistry()
        registry.hooks.beforeSave("Order") { request in
            if request.object["quantity"]?.intValue ?? 0 > 10 { throw HookError(message: "Too many.") }
        }
        try await TestServer.run(functions: registry) { api in
            let reply = try await BatchSaveTests.save(
                api,
                [["method": "POST", "path": "/1.1/classes/Order", "new": true, "body": ["quantity": 11, "__internalId": "o"]]])
            expectError(reply, code: 142)
            #expect(reply["error"]?.stringValue?.contains("Too many.") == true, "\(reply)")
            #expect(try await api.count("Order") == nil)
            // Hooks run as items run, so what came before a rejected item stays written (as in /batch).
            let partial = try await BatchSaveTests.save(
                api,
                [
                    ["method": "POST", "path": "/1.1/classes/Todo", "new": true, "body": ["title": "kept", "__internalId": "t"]],
                    ["method": "POST", "path": "/1.1/classes/Order", "new": true, "body": ["quantity": 12, "__internalId": "o"]],
                ])
            expectError(partial, code: 142)
            #expect(try await api.count("Todo") == 1)
            #expect(try await api.count("Order") == nil)
            let fine = try await BatchSaveTests.save(
                api,
                [["method": "POST", "path": "/1.1/classes/Order", "new": true, "body": ["quantity": 2, "__internalId": "o"]]])
            #expect(fine.status == .ok, "\(fine)")
            BatchSaveTests.expectCreated(fine["o"])
        }
    }

    @Test func typeAndMissingObjectErrorsAreTheSingleRoutesCodes() async throws {
        try await TestServer.run { api in
            _ = try await api.create("Todo", ["n": 1])
            let wrongType = try await BatchSaveTests.save(
                api, [["method": "POST", "path": "/1.1/classes/Todo", "new": true, "body": ["n": "one", "__internalId": "t"]]])
            expectError(wrongType, code: 111)
            let missing = try await BatchSaveTests.save(
                api,
                [["method": "PUT", "path": "/1.1/classes/Todo/000000000000000000000000", "body": ["n": 2, "__internalId": "000000000000000000000000"]]])
            expectError(missing, code: 101, status: .notFound)
        }
    }

    @Test func badInputIsRefusedWith400AndNothingWritten() async throws {
        try await TestServer.run { api in
            let ok: JSONValue = ["method": "POST", "path": "/1.1/classes/Todo", "body": ["title": "x", "__internalId": "ok"]]
            func item(_ members: [String: JSONValue]) -> JSONValue {
                .object(ok.objectValue!.merging(members) { _, new in new })
            }
            let cases: [(String, JSONValue, Int64)] = [
                ("array body", [1, 2], 107),
                ("no requests", ["other": []], 107),
                ("requests not an array", ["requests": ["a": 1]], 107),
                ("item not an object", ["requests": [ok, "POST"]], 107),
                ("no method", ["requests": [ok, .object(ok.objectValue!.filter { $0.key != "method" })]], 107),
                ("unknown method", ["requests": [ok, item(["method": "DELETE"])]], 107),
                ("GET", ["requests": [ok, item(["method": "GET"])]], 107),
                ("no path", ["requests": [ok, .object(ok.objectValue!.filter { $0.key != "path" })]], 107),
                ("function path", ["requests": [ok, item(["path": "/1.1/functions/hello"])]], 107),
                ("users/me", ["requests": [ok, item(["path": "/1.1/users/me/x"])]], 107),
                ("POST with an id", ["requests": [ok, item(["path": "/1.1/classes/Todo/abc"])]], 107),
                ("no body", ["requests": [ok, .object(ok.objectValue!.filter { $0.key != "body" })]], 107),
                ("body not an object", ["requests": [ok, item(["body": "x"])]], 107),
                ("no __internalId", ["requests": [ok, item(["body": ["title": "y"]])]], 107),
                ("params not an object", ["requests": [ok, item(["params": "fetchWhenSave"])]], 107),
                ("children not an array", ["requests": [ok, item(["body": ["__internalId": "p", "__children": "c"]])]], 107),
                (
                    "unknown cid", ["requests": [ok, item(["body": ["__internalId": "p", "__children": [["className": "Todo", "cid": "zz", "key": "k"]]]])]],
                    107
                ),
                (
                    "cid of another class",
                    ["requests": [ok, item(["body": ["__internalId": "p", "__children": [["className": "Tag", "cid": "ok", "key": "k"]]]])]], 107
                ),
                ("internalId reused for another class", ["requests": [ok, item(["path": "/1.1/classes/Tag"])]], 107),
                ("too many", ["requests": .array(Array(repeating: ok, count: BatchRoutes.maxRequests + 1))], 1),
            ]
            for (name, body, code) in cases {
                let reply = try await api.post("/1.1/batch/save", body)
                #expect(reply.status == .badRequest, "\(name): \(reply)")
                expectError(reply, code: code)
            }
            let malformed = try await api.send(.post, "/1.1/batch/save", body: #"{"requests": [ "#)
            expectError(malformed, code: 107, status: .badRequest)
            #expect(try await api.count("Todo") == nil, "no case wrote anything")
        }
    }
}
