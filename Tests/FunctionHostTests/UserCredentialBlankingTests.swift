import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// A user's username and password can be changed but never blanked (LeanCloud's 217 and 218):
/// not by the user, not by the master key, not through a batch, cloud code or a hook.
@Suite struct UserCredentialBlankingTests {
    static let script = """
        AV.Cloud.define('blankUsername', async function (request) {
          var user = AV.Object.createWithoutData('_User', request.params.id);
          user.unset('username');
          try { await user.save(null, { useMasterKey: true }); return 'saved'; }
          catch (e) { return { code: e.code, message: e.message }; }
        });
        AV.Cloud.beforeUpdate('_User', function (request) {
          if (request.object.get('nickname') === 'scrub') request.object.unset('username');
        });
        """

    static let blankings: [JSONValue] = [["__op": "Delete"], "", .null, "   "]

    static func expectRefused(_ reply: Reply, field: String, _ sent: JSONValue) {
        let (code, name): (Int64, String) = field == "username" ? (217, "username") : (218, "password")
        expectError(reply, code: code, status: .badRequest)
        #expect(reply["error"] == .string("Invalid \(name), it must be a non-blank string."), "\(field) \(sent): \(reply)")
    }

    /// ada, signed up; her id and session headers.
    static func signUp(_ api: API) async throws -> (id: String, session: HTTPFields) {
        let signup = try await api.post("/1.1/users", ["username": "ada", "password": "analytical engine"])
        return (try #require(signup.objectId), Headers.session(try #require(signup["sessionToken"]?.stringValue)))
    }

    /// Whether ada still logs in with her username and password.
    static func expectIntact(_ api: API, _ id: String) async throws {
        let login = try await api.post("/1.1/login", ["username": "ada", "password": "analytical engine"])
        #expect(login.status == .ok && login.objectId == id, "\(login)")
    }

    @Test func theUserItselfCannotBlankItsUsernameOrPassword() async throws {
        try await TestServer.run { api in
            let (id, session) = try await Self.signUp(api)
            for field in ["username", "password"] {
                for blank in Self.blankings {
                    // The attacker's request, and its kin, on both user paths.
                    for path in ["/1.1/users/\(id)", "/1.1/classes/_User/\(id)"] {
                        Self.expectRefused(try await api.put(path, headers: session, .object([field: blank])), field: field, blank)
                    }
                }
            }
            // Nothing was written, not even beside the refused field.
            Self.expectRefused(
                try await api.put("/1.1/users/\(id)", headers: session, ["nickname": "Ada", "username": ["__op": "Delete"]]),
                field: "username", ["__op": "Delete"])
            let me = try await api.get("/1.1/users/me", headers: session)
            #expect(me["username"] == "ada" && me["nickname"] == nil, "\(me)")
            try await Self.expectIntact(api, id)
            // Changing them is still fine.
            let renamed = try await api.put("/1.1/users/\(id)", headers: session, ["username": "lovelace", "password": "difference engine"])
            #expect(renamed.status == .ok, "\(renamed)")
            let login = try await api.post("/1.1/login", ["username": "lovelace", "password": "difference engine"])
            #expect(login.objectId == id, "\(login)")
        }
    }

    @Test func theMasterKeyCannotBlankThemEither() async throws {
        try await TestServer.run { api in
            let (id, _) = try await Self.signUp(api)
            for field in ["username", "password"] {
                for blank in Self.blankings {
                    let reply = try await api.put("/1.1/classes/_User/\(id)", headers: Headers.master, .object([field: blank]))
                    Self.expectRefused(reply, field: field, blank)
                }
            }
            // A signup by the master key may still leave the password out (imports, service accounts).
            let service = try await api.post("/1.1/users", headers: Headers.master, ["username": "service"])
            #expect(service.status == .created, "\(service)")
            Self.expectRefused(
                try await api.post("/1.1/users", headers: Headers.master, ["username": "   ", "password": "pw"]), field: "username", "   ")
            try await Self.expectIntact(api, id)
        }
    }

    @Test func batchesCloudCodeAndHooksCannotBlankAUsername() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.script.write(toFile: directory + "/users.js", atomically: true, encoding: .utf8)
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory) { api in
            let (id, session) = try await Self.signUp(api)
            let batch = try await api.post(
                "/1.1/batch", headers: session,
                ["requests": [["method": "PUT", "path": .string("/1.1/users/\(id)"), "body": ["username": ["__op": "Delete"]]]]])
            #expect(batch.status == .ok, "\(batch)")
            #expect(batch.json?.arrayValue?.first?["error"]?["code"] == 217, "\(batch)")
            let saved = try await api.post("/1.1/functions/blankUsername", headers: session, ["id": .string(id)])
            #expect(saved["result"]?["code"] == 217, "\(saved)")
            // A beforeUpdate that removes the username is refused as the client would be.
            let hooked = try await api.put("/1.1/users/\(id)", headers: session, ["nickname": "scrub"])
            expectError(hooked, code: 217, status: .badRequest)
            let me = try await api.get("/1.1/users/me", headers: session)
            #expect(me["username"] == "ada" && me["nickname"] == nil, "\(me)")
            try await Self.expectIntact(api, id)
        }
    }
}
