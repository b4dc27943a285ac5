import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// ACLs and roles on every read and write path, over real HTTP.
@Suite struct ACLTests {
    /// Two users and their session headers.
    struct People {
        let ada: String
        let bob: String
        let adaSession: HTTPFields
        let bobSession: HTTPFields
    }

    static func people(_ api: API) async throws -> People {
        let ada = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
        let bob = try await api.post("/1.1/users", ["username": "bob", "password": "pw"])
        return People(
            ada: try #require(ada.objectId), bob: try #require(bob.objectId),
            adaSession: Headers.session(try #require(ada["sessionToken"]?.stringValue)),
            bobSession: Headers.session(try #require(bob["sessionToken"]?.stringValue)))
    }

    @Test func privateObjectsAreHiddenFromEveryReadPath() async throws {
        try await TestServer.run { api in
            let people = try await Self.people(api)
            let mine = try await api.create(
                "Note", ["text": "ada's", "ACL": .object([people.ada: ["read": true, "write": true]])],
                headers: people.adaSession)
            _ = try await api.create("Note", ["text": "public"])
            _ = try await api.create("Link", ["note": pointer("Note", mine)])
            // Query and count agree, for each caller.
            for (headers, expected) in [(people.adaSession, 2), (people.bobSession, 1), (Headers.client, 1), (Headers.master, 2)] {
                let found = try await api.find("Note", ["count": "1"], headers: headers)
                #expect(found.results.count == expected && found["count"] == .int(Int64(expected)), "\(found)")
            }
            #expect(try await api.fetch("Note", mine, headers: people.adaSession)["text"] == "ada's")
            #expect(try await api.get("/1.1/classes/Note/\(mine)", headers: people.bobSession).text == "{}")
            // An include doesn't reveal what the ACL hides: the pointer stays a pointer.
            let included = try await api.find("Link", ["include": "note"], headers: people.bobSession)
            #expect(included.results.first?["note"] == pointer("Note", mine), "\(included)")
            let shown = try await api.find("Link", ["include": "note"], headers: people.adaSession)
            #expect(shown.results.first?["note"]?["text"] == "ada's")
            // CQL goes through the same filter.
            let cql = try await api.get("/1.1/cloudQuery?cql=\(encode("select count(*) from Note"))", headers: people.bobSession)
            #expect(cql["count"] == 1, "\(cql)")
        }
    }

    @Test func writesNeedWriteAccess() async throws {
        try await TestServer.run { api in
            let people = try await Self.people(api)
            let readOnly = try await api.create(
                "Note", ["text": "look", "ACL": .object(["*": ["read": true], people.ada: ["write": true]])])
            expectError(try await api.put("/1.1/classes/Note/\(readOnly)", headers: people.bobSession, ["text": "x"]), code: 119, status: .forbidden)
            expectError(try await api.delete("/1.1/classes/Note/\(readOnly)"), code: 119, status: .forbidden)
            #expect(try await api.put("/1.1/classes/Note/\(readOnly)", headers: people.adaSession, ["text": "edited"]).status == .ok)
            // Batch items are checked one by one.
            let batch = try await api.post(
                "/1.1/batch", headers: people.bobSession,
                [
                    "requests": [
                        ["method": "PUT", "path": .string("/1.1/classes/Note/\(readOnly)"), "body": ["text": "batch"]],
                        ["method": "POST", "path": "/1.1/classes/Note", "body": ["text": "bob's"]],
                    ]
                ])
            #expect(batch.json?.arrayValue?.first?["error"]?["code"] == 119, "\(batch)")
            #expect(batch.json?.arrayValue?.last?["success"]?["objectId"] != nil, "\(batch)")
            #expect(try await api.fetch("Note", readOnly)["text"] == "edited")
            #expect(try await api.delete("/1.1/classes/Note/\(readOnly)", headers: Headers.master).status == .ok)
        }
    }

    @Test func rolesGrantAccessThreeLevelsDeep() async throws {
        try await TestServer.run { api in
            let people = try await Self.people(api)
            // ada is in Editors; Editors is a child of Staff; Staff is a child of Admins.
            let editors = try await api.post(
                "/1.1/roles", headers: Headers.master,
                ["name": "Editors", "users": op("AddRelation", ["objects": [pointer("_User", people.ada)]])])
            let editorsId = try #require(editors.objectId, "\(editors)")
            let staff = try await api.post(
                "/1.1/roles", headers: Headers.master,
                ["name": "Staff", "roles": op("AddRelation", ["objects": [pointer("_Role", editorsId)]])])
            let staffId = try #require(staff.objectId)
            _ = try await api.post(
                "/1.1/roles", headers: Headers.master,
                ["name": "Admins", "roles": op("AddRelation", ["objects": [pointer("_Role", staffId)]])])
            let secret = try await api.create(
                "Secret", ["pin": 42, "ACL": ["role:Admins": ["read": true, "write": true]]], headers: Headers.master)
            #expect(try await api.fetch("Secret", secret, headers: people.adaSession)["pin"] == 42)
            #expect(try await api.get("/1.1/classes/Secret/\(secret)", headers: people.bobSession).text == "{}")
            #expect(try await api.put("/1.1/classes/Secret/\(secret)", headers: people.adaSession, ["pin": 43]).status == .ok)
            expectError(try await api.post("/1.1/roles", headers: Headers.master, ["name": "Editors"]), code: 137, status: .badRequest)
            expectError(try await api.post("/1.1/roles", headers: Headers.master, ["name": "bad/name"]), code: 105, status: .badRequest)
            expectError(try await api.post("/1.1/roles", ["name": "Mine"]), code: 119, status: .forbidden)
        }
    }
}
