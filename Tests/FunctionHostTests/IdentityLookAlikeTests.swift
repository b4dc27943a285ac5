import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 30, finding 2: identities are bytes. Swift's `String` equality is canonical
/// equivalence, so `管\u{F9E4}员` (a CJK compatibility ideograph in the middle) and a decomposed
/// Hangul name were the same role as `管理员` and `관리자` wherever a name was compared as a
/// `String`. Role names, usernames, ACL keys and class permissions' names are now normalised
/// when written and compared as bytes everywhere.
@Suite struct IdentityLookAlikeTests {
    /// The administrators' role of the issue, and a look-alike of it.
    static let admins = "管理员"
    static let adminsLookAlike = "管\u{F9E4}员"
    /// A Hangul name, and the same name in conjoining jamo (what NFD makes of it).
    static let hangul = "관리자"
    static var hangulDecomposed: String { hangul.decomposedStringWithCanonicalMapping }

    /// The UTF-8 bytes of a string answer, to compare as bytes (`==` on strings wouldn't tell).
    static func bytes(_ value: JSONValue?) -> [UInt8]? {
        value?.stringValue.map { Array($0.utf8) }
    }

    @Test func theSpellingsAreLookAlikesThatSwiftCallsEqual() {
        // The premise: distinct bytes, equal Strings.
        #expect(Self.adminsLookAlike == Self.admins && Array(Self.adminsLookAlike.utf8) != Array(Self.admins.utf8))
        #expect(Self.hangulDecomposed == Self.hangul && Array(Self.hangulDecomposed.utf8) != Array(Self.hangul.utf8))
    }

    /// Creating a role by a look-alike of a taken name is creating the taken name: 137, from
    /// any path and any caller; a new name is stored in its normal form.
    @Test func aLookAlikeOfATakenRoleNameIsTaken() async throws {
        try await TestServer.run { api in
            let people = try await ACLTests.people(api)
            for name in [Self.admins, Self.hangul] {
                _ = try await api.create("_Role", RoleClientTests.role(name, acl: ["*": ["read": true]]), headers: Headers.master)
            }
            let acl: JSONValue = .object([people.bob: ["read": true, "write": true]])
            for lookAlike in [Self.adminsLookAlike, Self.hangulDecomposed] {
                for path in RoleClientTests.paths {
                    let reply = try await api.post(
                        path, headers: people.bobSession, RoleClientTests.role(lookAlike, acl: acl, users: [people.bob]))
                    expectError(reply, code: 137, status: .badRequest)
                }
                expectError(try await api.post("/1.1/roles", headers: Headers.master, ["name": .string(lookAlike)]), code: 137)
            }
            #expect(try await RoleClientTests.roleNames(api).count == 2)
            // A name not taken yet is stored composed, whichever spelling created it.
            let fresh = try await api.post(
                "/1.1/roles", headers: people.bobSession, RoleClientTests.role("사용자".decomposedStringWithCanonicalMapping, acl: acl))
            let id = try #require(fresh.objectId, "\(fresh)")
            let stored = try await api.get("/1.1/roles/\(id)", headers: Headers.master)
            #expect(Self.bytes(stored["name"]) == Array("사용자".utf8), "\(stored)")
        }
    }

    /// A role stored under a look-alike name before names were normalised (the issue's attacker
    /// made one) holds none of the real role's rights: not its objects' ACLs, not a class
    /// permission naming it; and it can't be renamed to the real name's bytes.
    @Test func aStoredLookAlikeRoleGetsNoneOfTheRealOnesRights() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let setup = try await TestServer.run(dataDirectory: directory) { api in
            let people = try await ACLTests.people(api)
            _ = try await api.create(
                "_Role", RoleClientTests.role(Self.admins, acl: ["*": ["read": true]], users: [people.ada]), headers: Headers.master)
            let secret = try await api.create(
                "Secret", ["text": "admins only", "ACL": .object(["role:" + Self.admins: ["read": true, "write": true]])],
                headers: Headers.master)
            _ = try await api.create("Vault", ["v": 0], headers: Headers.master)
            let world = PermissionWorld(api: api, ids: ["ada": people.ada], sessions: ["ada": people.adaSession])
            try await world.permit("Vault", ["get", "find", "create"], ["roles": .array([.string(Self.admins)])])
            let seed = try await api.post(
                "/1.1/roles", headers: people.bobSession,
                RoleClientTests.role("Seed", acl: .object([people.bob: ["read": true, "write": true]]), users: [people.bob]))
            return (people, secret, try #require(seed.objectId, "\(seed)"))
        }
        let (people, secret, seed) = setup
        // The database as the attacker left it: its role's name is the look-alike's bytes.
        try await FunctionHostServer.withStorage(
            dataDirectory: directory, database: TestDatabase.location(for: directory), logger: .init(label: "seed")
        ) { storage in
            _ = try await storage.update(
                "_Role", id: seed, changes: ObjectChanges(fields: ["name": .set(.string(Self.adminsLookAlike))]), condition: nil)
        }
        try await TestServer.run(dataDirectory: directory) { api in
            // Ada, in the real role, reads the secret and uses the vault; Bob, in the look-alike, doesn't.
            #expect(try await api.fetch("Secret", secret, headers: people.adaSession)["text"] == "admins only")
            #expect(try await api.get("/1.1/classes/Secret/\(secret)", headers: people.bobSession).text == "{}")
            #expect(try await api.find("Secret", headers: people.bobSession).results.isEmpty)
            expectError(try await api.put("/1.1/classes/Secret/\(secret)", headers: people.bobSession, ["text": "mine"]), code: 119)
            #expect(try await api.post("/1.1/classes/Vault", headers: people.adaSession, ["v": 1]).status == .created)
            expectForbidden(try await api.post("/1.1/classes/Vault", headers: people.bobSession, ["v": 2]), "create")
            expectForbidden(try await api.find("Vault", headers: people.bobSession), "find")
            // Renaming it to the real name's bytes is a rename: refused, whoever asks.
            for headers in [people.bobSession, Headers.master] {
                let rename = try await api.put("/1.1/roles/\(seed)", headers: headers, ["name": .string(Self.admins)])
                #expect(rename.status == .badRequest && rename["code"] == 139, "\(rename)")
            }
            // The SDKs send the stored name again with other changes: no rename.
            #expect(try await api.put("/1.1/roles/\(seed)", headers: people.bobSession, ["name": .string(Self.adminsLookAlike), "note": "x"]).status == .ok)
            let stored = try await api.get("/1.1/roles/\(seed)", headers: Headers.master)
            #expect(Self.bytes(stored["name"]) == Array(Self.adminsLookAlike.utf8), "\(stored)")
            // Queries by the real name's bytes find the real role alone.
            let named = try await api.find("_Role", ["where": #"{"name":"\#(Self.admins)"}"#], headers: Headers.master)
            #expect(named.results.count == 1 && named.results.first?["objectId"] != .string(seed), "\(named)")
        }
    }

    /// ACL keys and class permissions' role names are stored normalised, so one written with a
    /// look-alike spelling names the role its reader sees, and the databases' byte comparison
    /// finds it.
    @Test func aclKeysAndPermissionNamesAreStoredNormalised() async throws {
        try await TestServer.run { api in
            let people = try await ACLTests.people(api)
            _ = try await api.create(
                "_Role", RoleClientTests.role(Self.admins, acl: ["*": ["read": true]], users: [people.ada]), headers: Headers.master)
            let note = try await api.create(
                "Note", ["text": "x", "ACL": .object(["role:" + Self.adminsLookAlike: ["read": true]])], headers: Headers.master)
            let stored = try await api.get("/1.1/classes/Note/\(note)", headers: Headers.master)
            let keys = stored["ACL"]?.objectValue.map { $0.keys.map { Array($0.utf8) } }
            #expect(keys == [Array(("role:" + Self.admins).utf8)], "\(stored)")
            // The query path (SQL) and the fetch path agree: Ada reads it, Bob doesn't.
            #expect(try await api.find("Note", headers: people.adaSession).results.count == 1)
            #expect(try await api.fetch("Note", note, headers: people.adaSession)["text"] == "x")
            #expect(try await api.find("Note", headers: people.bobSession).results.isEmpty)

            _ = try await api.create("Vault", ["v": 0], headers: Headers.master)
            let world = PermissionWorld(api: api, ids: ["ada": people.ada], sessions: ["ada": people.adaSession])
            try await world.permit("Vault", ["create"], ["roles": .array([.string(Self.adminsLookAlike)])])
            let schema = try await api.get("/1.1/schemas/Vault/permissions", headers: Headers.master)
            let listed = schema["permissions"]?["create"]?["roles"]?.arrayValue?.compactMap { $0.stringValue.map { Array($0.utf8) } }
            #expect(listed == [Array(Self.admins.utf8)], "\(schema)")
            #expect(try await api.post("/1.1/classes/Vault", headers: people.adaSession, ["v": 1]).status == .created)
        }
    }

    /// Usernames are identities too: a look-alike of a taken username is taken (202), and a
    /// login in another spelling of a username finds its account.
    @Test func aLookAlikeOfATakenUsernameIsTaken() async throws {
        try await TestServer.run { api in
            let composed = "José"
            let decomposed = composed.decomposedStringWithCanonicalMapping
            #expect(Array(composed.utf8) != Array(decomposed.utf8))
            let jose = try await api.post("/1.1/users", ["username": .string(composed), "password": "pw"])
            let id = try #require(jose.objectId, "\(jose)")
            expectError(try await api.post("/1.1/users", ["username": .string(decomposed), "password": "pw2"]), code: 202)
            expectError(try await api.post("/1.1/classes/_User", ["username": .string(decomposed), "password": "pw2"]), code: 202)
            let eve = try await api.post("/1.1/users", ["username": "eve", "password": "pw"])
            let eveSession = Headers.session(try #require(eve["sessionToken"]?.stringValue))
            expectError(
                try await api.put("/1.1/users/\(try #require(eve.objectId))", headers: eveSession, ["username": .string(decomposed)]),
                code: 202)
            let login = try await api.post("/1.1/login", ["username": .string(decomposed), "password": "pw"])
            #expect(login.status == .ok && login.objectId == .some(id), "\(login)")
            // A new one is stored composed.
            let hangul = try await api.post("/1.1/users", ["username": .string(Self.hangulDecomposed), "password": "pw"])
            let stored = try await api.get("/1.1/users/\(try #require(hangul.objectId))", headers: Headers.master)
            #expect(Self.bytes(stored["username"]) == Array(Self.hangul.utf8), "\(stored)")
        }
    }
}
