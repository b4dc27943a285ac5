import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Roles written by clients, as LeanCloud's guides show them: a signed-in user creates a role
/// with an ACL through `/roles`, `/classes/_Role` or a batch, changes one its ACL lets it
/// write, never renames one; and what a client may not do.
@Suite struct RoleClientTests {
    /// The paths a role is created through directly (and inside `/batch`).
    static let paths = ["/1.1/roles", "/1.1/classes/_Role"]

    /// A role body as the JS SDK's `new AV.Role(name, acl)` with `getUsers().add(user)` sends it.
    static func role(_ name: String, acl: JSONValue, users: [String] = []) -> JSONValue {
        var body: [String: JSONValue] = ["name": .string(name), "ACL": acl]
        if !users.isEmpty {
            body["users"] = op("AddRelation", ["objects": .array(users.map { pointer("_User", $0) })])
        }
        return .object(body)
    }

    /// One request of a `/batch` body.
    static func item(_ method: String, _ path: String, _ body: JSONValue) -> JSONValue {
        ["method": .string(method), "path": .string(path), "body": body]
    }

    /// The first answer of a `/batch` call.
    static func first(_ reply: Reply) -> JSONValue? { reply.json?.arrayValue?.first }

    @Test func aSignedInUserCreatesRolesThroughEveryPath() async throws {
        try await TestServer.run { api in
            let people = try await ACLTests.people(api)
            // user.js "User#getRoles": POST /classes/_Role with the user added, then the reverse query.
            let created = try await api.post(
                "/1.1/classes/_Role", headers: people.adaSession,
                Self.role("testRole", acl: ["*": ["read": true]], users: [people.ada]))
            #expect(created.status == .created && created.objectId != nil, "\(created)")
            let mine = try await api.find(
                "_Role", ["where": #"{"users":{"__type":"Pointer","className":"_User","objectId":"\#(people.ada)"}}"#],
                headers: people.adaSession)
            #expect(mine.results.map { $0["name"] } == ["testRole"], "\(mine)")
            let viaRoles = try await api.post("/1.1/roles", headers: people.adaSession, Self.role("second", acl: ["*": ["read": true]]))
            #expect(viaRoles.status == .created, "\(viaRoles)")
            for path in Self.paths {
                let name = path.hasSuffix("roles") ? "batchA" : "batchB"
                let batch = try await api.post(
                    "/1.1/batch", headers: people.bobSession,
                    ["requests": [Self.item("POST", path, Self.role(name, acl: [people.bob: ["read": true, "write": true]]))]])
                #expect(Self.first(batch)?["success"]?["objectId"] != nil, "\(path): \(batch)")
            }
            #expect(try await Self.roleNames(api).count == 4)
        }
    }

    @Test func anonymousClientsCantCreateRolesAndRolesNeedAnACL() async throws {
        try await TestServer.run { api in
            let people = try await ACLTests.people(api)
            let body = Self.role("crew", acl: ["*": ["read": true]])
            for path in Self.paths {
                expectError(try await api.post(path, body), code: 119, status: .forbidden)
                let batch = try await api.post("/1.1/batch", ["requests": [Self.item("POST", path, body)]])
                #expect(Self.first(batch)?["error"]?["code"] == 119, "\(batch)")
                // Signed in, but without an ACL: 111, as Parse and LeanCloud answer.
                let bare = try await api.post(path, headers: people.adaSession, ["name": "crew"])
                #expect(bare.status == .badRequest && bare.json == ["code": 111, "error": "ACL is required."], "\(bare)")
            }
            #expect(try await Self.roleNames(api).isEmpty, "nothing created")
            // The master key still needs none.
            #expect(try await api.post("/1.1/roles", headers: Headers.master, ["name": "crew"]).status == .created)
        }
    }

    /// `--anyone-creates-roles` opens creation to clients with no user, as LeanCloud's default
    /// permissions do (the JS suite's test app); the ACL is still required, and the role's ACL
    /// still decides who changes it.
    @Test func theOperatorMayOpenRoleCreationToAnyone() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.anyoneCreatesRoles = true }) { api in
            let created = try await api.post("/1.1/classes/_Role", Self.role("open", acl: ["*": ["read": true]]))
            #expect(created.status == .created, "\(created)")
            expectError(try await api.post("/1.1/roles", ["name": "bare"]), code: 111, status: .badRequest)
            let id = try #require(created.objectId)
            expectError(try await api.put("/1.1/roles/\(id)", ["users": op("AddRelation", ["objects": [pointer("_User", "x")]])]), code: 119)
        }
    }

    @Test func aWriterChangesMembersThroughEveryPath() async throws {
        try await TestServer.run { api in
            let people = try await ACLTests.people(api)
            let acl: JSONValue = ["*": ["read": true], .init(stringLiteral: people.ada): ["read": true, "write": true]]
            let role = try await api.post("/1.1/roles", headers: people.adaSession, Self.role("Editors", acl: acl, users: [people.ada]))
            let id = try #require(role.objectId, "\(role)")
            let add: JSONValue = ["users": op("AddRelation", ["objects": [pointer("_User", people.bob)]])]
            let remove: JSONValue = ["users": op("RemoveRelation", ["objects": [pointer("_User", people.bob)]])]
            #expect(try await api.put("/1.1/roles/\(id)", headers: people.adaSession, add).status == .ok)
            #expect(try await Self.members(api, id) == [people.ada, people.bob].sorted())
            #expect(try await api.put("/1.1/classes/_Role/\(id)", headers: people.adaSession, remove).status == .ok)
            #expect(try await Self.members(api, id) == [people.ada])
            let batch = try await api.post(
                "/1.1/batch", headers: people.adaSession, ["requests": [Self.item("PUT", "/1.1/roles/\(id)", add)]])
            #expect(Self.first(batch)?["success"] != nil, "\(batch)")
            #expect(try await Self.members(api, id) == [people.ada, people.bob].sorted())
            // Sending the same name again with a change is no rename.
            let same = try await api.put("/1.1/roles/\(id)", headers: people.adaSession, ["name": "Editors", "note": "x"])
            #expect(same.status == .ok, "\(same)")
        }
    }

    @Test func noClientChangesARoleItsACLDoesntLetItWriteOrRenamesOne() async throws {
        try await TestServer.run { api in
            let people = try await ACLTests.people(api)
            let acl: JSONValue = ["*": ["read": true], .init(stringLiteral: people.ada): ["read": true, "write": true]]
            let role = try await api.post("/1.1/roles", headers: people.adaSession, Self.role("Admins", acl: acl, users: [people.ada]))
            let id = try #require(role.objectId, "\(role)")
            let joinBob: JSONValue = ["users": op("AddRelation", ["objects": [pointer("_User", people.bob)]])]
            for path in ["/1.1/roles/\(id)", "/1.1/classes/_Role/\(id)"] {
                expectError(try await api.put(path, headers: people.bobSession, joinBob), code: 119, status: .forbidden)
                expectError(try await api.put(path, joinBob), code: 119, status: .forbidden)
                expectError(try await api.delete(path, headers: people.bobSession), code: 119, status: .forbidden)
                let batch = try await api.post("/1.1/batch", headers: people.bobSession, ["requests": [Self.item("PUT", path, joinBob)]])
                #expect(Self.first(batch)?["error"]?["code"] == 119, "\(batch)")
                // Even its writer can't rename it, or drop its ACL.
                let rename = try await api.put(path, headers: people.adaSession, ["name": "Owners"])
                #expect(rename.status == .badRequest && rename["code"] == 139, "\(rename)")
                expectError(try await api.put(path, headers: people.adaSession, ["ACL": nil]), code: 111)
            }
            #expect(try await Self.members(api, id) == [people.ada])
            let stored = try await api.get("/1.1/roles/\(id)", headers: Headers.master)
            #expect(stored["name"] == "Admins" && stored["ACL"] == acl, "\(stored)")
            // A role bob creates takes no one's privileges: its name is unique.
            let impostor = try await api.post(
                "/1.1/roles", headers: people.bobSession, Self.role("Admins", acl: [people.bob: ["write": true]], users: [people.bob]))
            expectError(impostor, code: 137)
        }
    }

    /// The names of all roles, read with the master key.
    static func roleNames(_ api: API) async throws -> [String] {
        try await api.find("_Role", headers: Headers.master).results.compactMap { $0["name"]?.stringValue }
    }

    /// The ids of a role's `users`, sorted, read with the master key.
    static func members(_ api: API, _ roleId: String) async throws -> [String] {
        let related = #"{"$relatedTo":{"object":{"__type":"Pointer","className":"_Role","objectId":"\#(roleId)"},"key":"users"}}"#
        let reply = try await api.get("/1.1/users" + queryString(["where": related]), headers: Headers.master)
        return reply.results.compactMap { $0["objectId"]?.stringValue }.sorted()
    }
}
