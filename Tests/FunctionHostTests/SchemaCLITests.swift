import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// `functionhost schema show|set|permit|field`, run as the built executable against a live
/// server: each change is what the server then enforces on clients.
@Suite struct SchemaCLITests {
    static func session(_ token: String) -> HTTPFields {
        Headers.make([("X-LC-Id", "app"), ("X-LC-Key", "key"), ("X-LC-Session", token)])
    }

    @Test func permissionsAndFieldFlagsAreSetFromTheCommandLine() async throws {
        let files = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        try await TestServer.run(transport: .socket) { api in
            let port = api.port
            let id = try await api.create("Post", ["title": "hello", "secret": "s1", "ACL": ["*": ["read": true, "write": true]]])
            let signup = try await api.post("/1.1/users", ["username": "ann", "password": "secret1"])
            let ann = Self.session(try #require(signup["sessionToken"]?.stringValue, "\(signup)"))
            let annId = try #require(signup.objectId)

            let shown = try await CLI.functionhost(["schema", "show", "Post"], port: port)
            #expect(shown.status == 0 && shown.output.split(separator: "\n").count > 3, "pretty JSON: \(shown)")
            let defaults = try JSONValue(parsing: Array(shown.output.utf8))
            #expect(defaults["className"] == "Post" && defaults["permissions"]?["find"] == ["*": true], "\(shown)")

            let closed = try await CLI.functionhost(["schema", "permit", "Post", "find", "nobody"], port: port)
            #expect(closed.status == 0 && closed.output.contains("find is now open to nobody but the master key"), "\(closed)")
            let refused = try await api.find("Post")
            expectError(refused, code: 403, status: .forbidden)
            #expect(refused["error"] == "Forbidden to find by class permissions.", "\(refused)")

            let signedIn = try await CLI.functionhost(["schema", "permit", "Post", "find", "signed-in"], port: port)
            #expect(signedIn.output.contains("find is now open to signed-in users"), "\(signedIn)")
            expectError(try await api.find("Post"), code: 403, status: .forbidden)
            #expect(try await api.find("Post", headers: ann).results.count == 1)

            let listed = try await CLI.functionhost(
                ["schema", "permit", "Post", "delete", "role:admin, user:\(annId)", "--json"], port: port)
            let answer = try JSONValue(parsing: Array(listed.output.utf8))
            #expect(answer["permissions"]?["delete"] == ["users": [.string(annId)], "roles": ["admin"]], "\(listed)")

            let hidden = try await CLI.functionhost(["schema", "field", "Post", "secret", "--hidden", "--read-only"], port: port)
            #expect(hidden.status == 0 && hidden.output.contains("Post.secret: hidden, read-only."), "\(hidden)")
            let seen = try await api.fetch("Post", id, headers: ann)
            #expect(seen["title"] == "hello" && seen["secret"] == nil, "\(seen)")
            #expect(try await api.fetch("Post", id, headers: Headers.master)["secret"] == "s1")
            expectError(try await api.put("/1.1/classes/Post/\(id)", headers: ann, ["secret": "mine"]), code: 117, status: .badRequest)
            let cleared = try await CLI.functionhost(["schema", "field", "Post", "secret", "--clear"], port: port)
            #expect(cleared.output.contains("Post.secret: no flags."), "\(cleared)")
            #expect(try await api.fetch("Post", id, headers: ann)["secret"] == "s1")

            // An export's `_all.json` as it is: types and indexes ride along, unread.
            let file = files + "/Post_all.json"
            try #"{"schema":{"title":{"type":"String","read_only":true}},"permissions":{"find":{"*":true}},"indexes":[]}"#
                .write(toFile: file, atomically: true, encoding: .utf8)
            let set = try await CLI.functionhost(["schema", "set", "Post", file], port: port)
            #expect(set.status == 0, "\(set)")
            let applied = try JSONValue(parsing: Array(set.output.utf8))
            #expect(applied["schema"]?["title"] == ["read_only": true] && applied["permissions"]?["find"] == ["*": true], "\(set)")
            #expect(try await api.find("Post").results.count == 1)
            expectError(try await api.put("/1.1/classes/Post/\(id)", ["title": "mine"]), code: 117, status: .badRequest)

            let piped = try await CLI.functionhost(
                ["schema", "set", "Post", "-"], port: port, input: #"{"permissions":{"create":{"onlySignInUsers":true}}}"#)
            #expect(piped.status == 0, "\(piped)")
            let create = try await api.post("/1.1/classes/Post", ["n": 1])
            expectError(create, code: 403, status: .forbidden)
            #expect(create["error"] == "Forbidden to create by class permissions.")
            #expect(try await api.post("/1.1/classes/Post", headers: ann, ["n": 1]).status == .created)
        }
    }

    @Test func badInputFailsWithOneLineAndANonZeroExit() async throws {
        let files = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: files) }
        try "not json".write(toFile: files + "/bad.json", atomically: true, encoding: .utf8)
        try #"{"indexes":[]}"#.write(toFile: files + "/Post_indexes.json", atomically: true, encoding: .utf8)
        try await TestServer.run(transport: .socket) { api in
            let port = api.port
            let cases: [([String], String)] = [
                (["schema", "permit", "Post", "fly", "everyone"], "'fly' is not an action"),
                (["schema", "permit", "Post", "find", "somebody"], "'somebody' is not user:<id> or role:<name>"),
                (["schema", "permit", "Post", "find", "user:"], "'user:' is not user:<id>"),
                (["schema", "field", "Post", "secret"], "Give --hidden, --read-only, --user-private or --clear."),
                (["schema", "field", "Post", "secret", "--hidden", "--clear"], "--clear unsets every flag"),
                (["schema", "field", "Post", "a.b", "--hidden"], "'a.b' is not a field name"),
                (["schema", "show", "9Post"], "'9Post' is not a class name"),
                (["schema", "set", "Post", files + "/missing.json"], "functionhost: no file"),
                (["schema", "set", "Post", files + "/bad.json"], "bad.json is not a JSON object"),
                (["schema", "set", "Post", files + "/Post_indexes.json"], "neither \"permissions\" nor \"schema\""),
                // The server's refusal, with its code.
                (["schema", "permit", "_ClassSettings", "find", "everyone"], "(code 119, HTTP 403)"),
                (["schema", "set", "Post", "-"], "standard input is not a JSON object"),
            ]
            for (arguments, message) in cases {
                let run = try await CLI.functionhost(arguments, port: port, input: "")
                #expect(run.status != 0 && run.errors.contains(message), "\(arguments): \(run)")
            }
            let wrongKey = try await CLI.functionhost(["schema", "show", "Post", "--master-key", "nope"], port: port)
            #expect(wrongKey.status == 1 && wrongKey.errors.split(separator: "\n").count == 1, "\(wrongKey)")
            // Nothing above changed the class.
            let shown = try await CLI.functionhost(["schema", "show", "Post", "--json"], port: port)
            let settings = try JSONValue(parsing: Array(shown.output.utf8))
            #expect(settings["permissions"]?["find"] == ["*": true] && settings["schema"] == [:], "\(shown)")
        }
    }
}
