import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Field-level permissions on every path a field is read or written by: `hidden` (never
/// answered to a client, never queried by one), `read_only` (written by the master key only)
/// and `user_private` (a `_User` field only its user sees, which the operator may open).
@Suite struct ClassPermissionFieldTests {
    /// LeanCloud's answer to a query naming a field the caller may not query.
    static func expectUnqueryable(_ reply: Reply, _ field: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            reply.status == .forbidden && reply.json == ["code": 119, "error": .string("Forbidden to query the field \(field).")],
            "\(reply)", sourceLocation: sourceLocation)
    }

    static func cql(_ api: API, _ statement: String, _ headers: HTTPFields) async throws -> Reply {
        try await api.get("/1.1/cloudQuery" + queryString(["cql": statement]), headers: headers)
    }

    @Test func aUsersOwnAnswersLeaveOutItsHiddenColumns() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            let noted = try await api.put("/1.1/users/\(world.ada)", headers: Headers.master, ["staffNote": "watch"])
            #expect(noted.status == .ok, "\(noted)")
            try await world.configure("_User", ["schema": ["staffNote": ["hidden": true]]])
            // Signup, login and users/me answer the user's own view: its private fields, not the
            // columns hidden from every client.
            let login = try await api.post("/1.1/login", ["username": "ada", "password": "pw"])
            #expect(login.status == .ok && login["staffNote"] == nil && login["sessionToken"] != nil, "\(login)")
            let me = try await api.get("/1.1/users/me", headers: world.session("ada"))
            #expect(me["username"] == "ada" && me["staffNote"] == nil, "\(me)")
            #expect(try await api.fetch("_User", world.ada, headers: world.session("ada"))["staffNote"] == nil)
            #expect(try await api.fetch("_User", world.ada, headers: Headers.master)["staffNote"] == "watch")
        }
    }

    @Test func hiddenFieldsAreNeitherAnsweredNorQueried() async throws {
        try await JSDataServer.run(["perm.js": ClassPermissionCloudTests.script], functions: ClassPermissionCloudTests.registry) { api in
            let world = try await PermissionWorld.make(api)
            let note = try await api.create("Note", ["text": "a", "secret": "s1"], headers: Headers.master)
            _ = try await api.create("Link", ["note": pointer("Note", note), "text": "a"], headers: Headers.master)
            try await world.configure("Note", ["schema": ["secret": ["hidden": true]]])
            let user = world.session("ada")

            // Answered nowhere...
            let fetched = try await api.fetch("Note", note, headers: user)
            #expect(fetched["text"] == "a" && fetched["secret"] == nil, "\(fetched)")
            for parameters in [[:], ["keys": "secret"], ["keys": "text,secret"]] {
                let found = try await api.find("Note", parameters, headers: user)
                #expect(found.status == .ok && found.results.count == 1, "\(parameters): \(found)")
                #expect(found.results.first?["secret"] == nil, "\(parameters): \(found)")
            }
            let included = try await api.find("Link", ["include": "note"], headers: user)
            #expect(included.results.first?["note"]?["text"] == "a", "\(included)")
            #expect(included.results.first?["note"]?["secret"] == nil, "\(included)")
            for statement in ["select * from Note", "select secret, text from Note", "select include note, * from Link"] {
                let reply = try await Self.cql(api, statement, user)
                #expect(reply.status == .ok && !reply.text.contains("s1"), "\(statement): \(reply)")
            }
            for function in ["perm", "swiftPerm"] {
                let found = try await ClassPermissionCloudTests.call(api, function, "find", ["className": "Note"], headers: user)
                #expect(found["results"]?.arrayValue?.first?["text"] == "a" && !"\(found)".contains("s1"), "\(function): \(found)")
                let got = try await ClassPermissionCloudTests.call(
                    api, function, "get", ["className": "Note", "id": .string(note)], headers: user)
                #expect(got["object"]?["text"] == "a" && got["object"]?["secret"] == nil, "\(function): \(got)")
                // ...and queried nowhere.
                let queried = try await ClassPermissionCloudTests.call(
                    api, function, "find", ["className": "Note", "key": "secret", "value": "s1"], headers: user)
                #expect(queried == ["ok": false, "code": 119, "error": "Forbidden to query the field secret."], "\(function): \(queried)")
            }
            for parameters in [
                ["where": #"{"secret":"s1"}"#], ["where": #"{"secret":{"$exists":true}}"#],
                ["where": #"{"$or":[{"text":"zz"},{"secret":{"$regex":"^s"}}]}"#], ["order": "secret"], ["order": "text,-secret"],
            ] {
                Self.expectUnqueryable(try await api.find("Note", parameters, headers: user), "secret")
            }
            // Through another class's subquery too.
            for condition in [
                #"{"note":{"$inQuery":{"className":"Note","where":{"secret":"s1"}}}}"#,
                #"{"text":{"$select":{"query":{"className":"Note","where":{}},"key":"secret"}}}"#,
            ] {
                Self.expectUnqueryable(try await api.find("Link", ["where": condition], headers: user), "secret")
            }
            Self.expectUnqueryable(try await Self.cql(api, "select * from Note where secret = 's1'", user), "secret")
            Self.expectUnqueryable(try await Self.cql(api, "select * from Note order by secret", user), "secret")

            // The master key sees and queries it.
            #expect(try await api.fetch("Note", note, headers: Headers.master)["secret"] == "s1")
            let master = try await api.find("Note", ["where": #"{"secret":"s1"}"#], headers: Headers.master)
            #expect(master.results.first?["secret"] == "s1", "\(master)")
            let masterJS = try await ClassPermissionCloudTests.call(api, "perm", "find", ["className": "Note"], headers: user, master: true)
            #expect(masterJS["results"]?.arrayValue?.first?["secret"] == "s1", "\(masterJS)")
        }
    }

    @Test func readOnlyFieldsAreWrittenByTheMasterKeyOnly() async throws {
        try await JSDataServer.run(["perm.js": ClassPermissionCloudTests.script], functions: ClassPermissionCloudTests.registry) { api in
            let world = try await PermissionWorld.make(api)
            try await world.configure("Note", ["schema": ["score": ["read_only": true]]])
            let note = try await api.create("Note", ["text": "a", "score": 1], headers: Headers.master)
            let user = world.session("ada")
            let refusal: JSONValue = ["code": 117, "error": "The field score is read-only."]
            func expectReadOnly(_ reply: Reply, sourceLocation: SourceLocation = #_sourceLocation) {
                #expect(reply.status == .badRequest && reply.json == refusal, "\(reply)", sourceLocation: sourceLocation)
            }
            expectReadOnly(try await api.post("/1.1/classes/Note", headers: user, ["text": "b", "score": 2]))
            expectReadOnly(try await api.put("/1.1/classes/Note/\(note)", headers: user, ["score": 2]))
            expectReadOnly(try await api.put("/1.1/classes/Note/\(note)", headers: user, ["score": op("Increment", ["amount": 1])]))
            expectReadOnly(try await api.put("/1.1/classes/Note/\(note)", headers: user, ["score": op("Delete")]))
            let batch = try await api.post(
                "/1.1/batch", headers: user,
                ["requests": [ClassPermissionRouteTests.item("PUT", "/1.1/classes/Note/\(note)", ["score": 3])]])
            #expect(batch.json == [["error": refusal]], "\(batch)")
            expectReadOnly(
                try await BatchSaveTests.save(
                    api, [["method": "POST", "path": "/1.1/classes/Note", "new": true, "body": ["score": 4, "__internalId": "x"]]],
                    headers: user))
            for function in ["perm", "swiftPerm"] {
                let cloud = try await ClassPermissionCloudTests.call(
                    api, function, "update", ["className": "Note", "id": .string(note), "fields": ["score": 5]], headers: user)
                #expect(cloud == ["ok": false, "code": 117, "error": "The field score is read-only."], "\(function): \(cloud)")
            }
            #expect(try await api.fetch("Note", note, headers: Headers.master)["score"] == 1, "no client write got through")

            // The client writes the other fields; it still reads the read-only one.
            #expect(try await api.put("/1.1/classes/Note/\(note)", headers: user, ["text": "b"]).status == .ok)
            #expect(try await api.fetch("Note", note, headers: user)["score"] == 1)
            #expect(try await api.put("/1.1/classes/Note/\(note)", headers: Headers.master, ["score": 6]).status == .ok)
            let cloud = try await ClassPermissionCloudTests.call(
                api, "swiftPerm", "update", ["className": "Note", "id": .string(note), "fields": ["score": 7]], headers: user,
                master: true)
            #expect(cloud["ok"] == true, "\(cloud)")
            #expect(try await api.fetch("Note", note, headers: Headers.master)["score"] == 7)
        }
    }

    @Test func userPrivateFieldsAreTheirUsersUntilOpened() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            let contact: JSONValue = ["email": "ada@example.com", "mobilePhoneNumber": "18600000000"]
            #expect(try await api.put("/1.1/users/\(world.ada)", headers: Headers.master, contact).status == .ok)
            _ = try await api.create("Note", ["owner": pointer("_User", world.ada)], headers: Headers.master)
            let bob = world.session("bob")
            func bobSees() async throws -> (fetched: JSONValue, included: JSONValue?) {
                let fetched = try await api.get("/1.1/users/\(world.ada)", headers: bob)
                let included = try await api.find("Note", ["include": "owner"], headers: bob)
                return (try #require(fetched.json), included.results.first?["owner"])
            }
            let before = try await bobSees()
            #expect(before.fetched["username"] == "ada" && before.fetched["email"] == nil, "\(before)")
            #expect(before.included?["username"] == "ada" && before.included?["email"] == nil, "\(before)")
            #expect(before.fetched["mobilePhoneNumber"] == nil)
            // Her own user is answered to her in full.
            let own = try await api.get("/1.1/users/me", headers: world.session("ada"))
            #expect(own["email"] == "ada@example.com" && own["mobilePhoneNumber"] == "18600000000", "\(own)")
            ClassPermissionFieldTests.expectUnqueryable(
                try await api.find("_User", ["where": #"{"email":"ada@example.com"}"#], headers: bob), "email")

            try await world.configure("_User", ["schema": ["email": ["user_private": false]]])
            let after = try await bobSees()
            #expect(after.fetched["email"] == "ada@example.com", "\(after)")
            #expect(after.included?["email"] == "ada@example.com", "\(after)")
            #expect(after.fetched["mobilePhoneNumber"] == nil, "the other private fields stay private")
            // Queryable now, though `_User` find still shows bob his own row only.
            let queried = try await api.find("_User", ["where": #"{"email":"ada@example.com"}"#], headers: bob)
            #expect(queried.status == .ok && queried.results.isEmpty, "\(queried)")
            let document = try await api.get("/1.1/schemas/_User/permissions", headers: Headers.master)
            #expect(document["schema"]?["email"] == nil && document["schema"]?["mobilePhoneNumber"] == ["user_private": true], "\(document)")
        }
    }
}
