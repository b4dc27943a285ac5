import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The settings a class has before anyone sets them (`_User` find: own row only; `_File`
/// delete: closed), and `/1.1/schemas/{Class}` as the way to change and read them.
@Suite struct ClassPermissionDefaultsTests {
    static func ids(_ reply: Reply) -> Set<String> {
        Set(reply.results.compactMap { $0["objectId"]?.stringValue })
    }

    @Test func clientsFindOnlyTheirOwnUserUntilFindIsOpened() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            let ada = world.session("ada")
            // Not an error: the query answers her own row, whatever it asks.
            let own = try await api.find("_User", ["count": "1"], headers: ada)
            #expect(own.status == .ok && Self.ids(own) == [world.ada] && own["count"] == 1, "\(own)")
            let other = try await api.find("_User", ["where": #"{"username":"bob"}"#, "count": "1"], headers: ada)
            #expect(other.results.isEmpty && other["count"] == 0, "\(other)")
            let anonymous = try await api.find("_User", ["count": "1"], headers: Headers.client)
            #expect(anonymous.status == .ok && anonymous.results.isEmpty && anonymous["count"] == 0, "\(anonymous)")
            let cql = try await api.get("/1.1/cloudQuery" + queryString(["cql": "select count(*) from _User"]), headers: ada)
            #expect(cql["count"] == 1, "\(cql)")
            // A subquery on `_User` sees the same single row.
            _ = try await api.create("Note", ["owner": pointer("_User", world.ids["bob"]!)], headers: Headers.master)
            _ = try await api.create("Note", ["owner": pointer("_User", world.ada)], headers: Headers.master)
            let owned = try await api.find(
                "Note", ["where": #"{"owner":{"$inQuery":{"className":"_User","where":{}}}}"#], headers: ada)
            #expect(owned.results.map { $0["owner"] } == [pointer("_User", world.ada)], "\(owned)")
            // `get` stays open: a user's public fields are fetched by id.
            #expect(try await api.get("/1.1/users/\(world.ids["bob"]!)", headers: ada)["username"] == "bob")
            #expect(Self.ids(try await api.find("_User", headers: Headers.master)).count == 4)

            let defaults = try await api.get("/1.1/schemas/_User/permissions", headers: Headers.master)
            #expect(defaults["permissions"]?["find"] == ["users": [], "roles": []], "\(defaults)")
            #expect(defaults["permissions"]?["create"] == ["*": true], "signup stays open: \(defaults)")
            try await world.permit("_User", ["find"], ["onlySignInUsers": true])
            #expect(Self.ids(try await api.find("_User", headers: ada)).count == 4)
            // Still no error for a caller the rule leaves out: `_User` answers it its own row, none.
            let outside = try await api.find("_User", headers: Headers.client)
            #expect(outside.status == .ok && outside.results.isEmpty, "\(outside)")
        }
    }

    /// `--open-user-queries` opens `_User` find to everyone.
    @Test func theOperatorMayOpenUserQueries() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.openUserQueries = true }) { api in
            let world = try await PermissionWorld.make(api)
            #expect(Self.ids(try await api.find("_User", headers: world.session("ada"))).count == 4)
            let document = try await api.get("/1.1/schemas/_User/permissions", headers: Headers.master)
            #expect(document["permissions"]?["find"] == ["*": true], "\(document)")
        }
    }

    @Test func filesAreDeletedByClientsOnlyWhereDeleteIsOpened() async throws {
        try await FileFixture.run { api, _ in
            let world = try await PermissionWorld.make(api)
            var files: [String] = []
            for name in ["a", "b", "c"] {
                let uploaded = try await FileFixture.upload(api, "\(name).txt", name, headers: world.session("ada"))
                files.append(try #require(uploaded["objectId"]?.stringValue, "\(uploaded)"))
            }
            for headers in [Headers.client, world.session("ada")] {
                expectForbidden(try await api.delete("/1.1/files/\(files[0])", headers: headers), "delete")
                expectForbidden(try await api.delete("/1.1/classes/_File/\(files[0])", headers: headers), "delete")
            }
            #expect(try await api.get("/1.1/files/\(files[0])")["name"] == "a.txt", "still there")
            #expect(try await api.delete("/1.1/files/\(files[0])", headers: Headers.master).status == .ok)

            try await world.permit("_File", ["delete"], ["users": [.string(world.ada)]])
            expectForbidden(try await api.delete("/1.1/files/\(files[1])", headers: world.session("bob")), "delete")
            #expect(try await api.delete("/1.1/files/\(files[1])", headers: world.session("ada")).status == .ok)
            #expect(try await api.delete("/1.1/classes/_File/\(files[2])", headers: world.session("ada")).status == .ok)
            expectError(try await api.get("/1.1/files/\(files[1])"), code: 101)
        }
    }

    @Test func onlyTheMasterKeyChangesOrReadsSettings() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            _ = try await api.create("Note", ["text": "a"], headers: Headers.master)
            let change: JSONValue = ["permissions": ["find": ["*": true]]]
            for headers in [Headers.client, world.session("ada")] {
                let refused = try await api.put("/1.1/schemas/Note", headers: headers, change)
                #expect(refused.status == .forbidden && refused["code"] == 119, "\(refused)")
                let read = try await api.get("/1.1/schemas/Note/permissions", headers: headers)
                #expect(read.status == .forbidden && read["code"] == 119, "\(read)")
            }
            // The host's own classes have no settings to change.
            for ownClass in ["_ClassSettings", "_EngineEnvironment"] {
                let refused = try await api.put("/1.1/schemas/\(ownClass)", headers: Headers.master, change)
                #expect(refused.status == .forbidden && refused["code"] == 119, "\(ownClass): \(refused)")
            }
        }
    }

    @Test(arguments: [
        #"[]"#, #"{"permissions":[]}"#, #"{"permissions":{"fly":{"*":true}}}"#, #"{"permissions":{"get":"everyone"}}"#,
        #"{"permissions":{"get":{"users":[1]}}}"#, #"{"permissions":{"get":{"roles":{"a":1}}}}"#,
        #"{"schema":[]}"#, #"{"schema":{"secret":true}}"#, #"{"schema":{"secret":{"hidden":"yes"}}}"#,
    ])
    func aMalformedDocumentIsRefusedWithoutChangingAnything(body: String) async throws {
        try await TestServer.run { api in
            _ = try await api.create("Note", ["text": "a"], headers: Headers.master)
            let reply = try await api.send(.put, "/1.1/schemas/Note", headers: Headers.master, body: body)
            expectError(reply, code: 107, status: .badRequest)
            let document = try await api.get("/1.1/schemas/Note/permissions", headers: Headers.master)
            #expect(document["schema"] == [:] && document["permissions"]?["get"] == ["*": true], "\(document)")
        }
    }

    /// A LeanCloud export's `<Class>_all.json` is taken as it is: types ignored, flags and
    /// rules applied; the answer and `GET .../permissions` are the effective settings.
    @Test func anExportedDocumentIsAppliedAndAnsweredInFull() async throws {
        try await TestServer.run { api in
            let world = try await PermissionWorld.make(api)
            _ = try await api.create("Note", ["text": "a", "secret": "s", "score": 1], headers: Headers.master)
            let exported = try json(
                """
                {"permissions":{"get":{"*":true},"find":{"onlySignInUsers":true},"create":{"users":["\(world.ada)"],"roles":["staff"]},
                  "update":{"users":"","roles":""},"delete":{"users":[],"roles":[]}},
                 "schema":{"text":{"type":"String"},"secret":{"type":"String","hidden":true},"score":{"type":"Number","read_only":true}}}
                """)
            let answered = try await api.put("/1.1/schemas/Note", headers: Headers.master, exported)
            let expected: JSONValue = [
                "className": "Note",
                "permissions": [
                    "get": ["*": true], "find": ["onlySignInUsers": true],
                    "create": ["users": [.string(world.ada)], "roles": ["staff"]], "update": ["users": [], "roles": []],
                    "delete": ["users": [], "roles": []], "add_fields": ["*": true],
                ],
                "schema": ["secret": ["hidden": true], "score": ["read_only": true]],
            ]
            #expect(answered.status == .ok && answered.json == expected, "\(answered)")
            #expect(try await api.get("/1.1/schemas/Note/permissions", headers: Headers.master).json == expected)
            // A later partial document changes what it names only.
            let cleared = try await api.put(
                "/1.1/schemas/Note", headers: Headers.master, ["schema": ["secret": ["hidden": false]], "permissions": ["find": ["*": true]]])
            #expect(cleared["schema"] == ["score": ["read_only": true]] && cleared["permissions"]?["find"] == ["*": true], "\(cleared)")
            #expect(cleared["permissions"]?["create"] == expected["permissions"]?["create"], "\(cleared)")
            let note = try #require(try await api.find("Note", headers: Headers.master).results.first?["objectId"]?.stringValue)
            #expect(try await api.fetch("Note", note, headers: world.session("ada"))["secret"] == "s", "no longer hidden")
            // The field descriptors of `GET /schemas/{Class}` carry the flags set.
            let schema = try await api.get("/1.1/schemas/Note", headers: Headers.master)
            #expect(schema.text.contains("read_only"), "\(schema)")
        }
    }
}
