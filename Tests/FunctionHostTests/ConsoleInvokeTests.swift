import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The console's own routes beside the API's: a function invoked from its form (in staging or
/// production, as the master key or as a user the host acts for, with the call's log lines),
/// the metrics its charts read, and the variables page's secrets, never answered in clear.
@Suite struct ConsoleInvokeTests {
    /// A version's code: `hello` answers its tag and its caller, logging a line; `fail` throws.
    static func code(_ tag: String) -> String {
        """
        AV.Cloud.define('hello', function (request) {
          var who = request.currentUser ? request.currentUser.get('username') : 'master';
          console.log('hello from \(tag) for ' + who + (request.sessionToken ? ' with a token' : ''));
          return { tag: '\(tag)', who: who, n: request.params.n };
        });
        AV.Cloud.define('secret', { internal: true }, function () {
          return 'internal ran';
        });
        AV.Cloud.define('fail', function () {
          console.log('about to fail');
          throw new AV.Cloud.Error('no luck', { code: 142 });
        });
        """
    }

    /// A host whose production runs v1 and staging v2.
    static func run(_ body: @Sendable (API) async throws -> Void) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try code("v1").write(toFile: directory + "/cloud.js", atomically: true, encoding: .utf8)
        try await TestServer.run(dataDirectory: directory, functionsDirectory: directory) { api in
            let deployed = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master, ["environment": "staging", "files": ["cloud.js": .string(code("v2"))]])
            #expect(deployed.status == .created, "\(deployed)")
            try await body(api)
        }
    }

    /// As a user, as that user's own call: an internal function is refused (from the attack
    /// review: it ran, where the user's own call is answered 401). As the master it runs.
    @Test func anInternalFunctionIsRefusedAsAUserAndRunsAsTheMaster() async throws {
        try await Self.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            let signedUp = try await api.post("/1.1/users", ["username": "bob", "password": "secret-pass"])
            let bob = try #require(signedUp.objectId, "\(signedUp)")
            let asBob = try await browser.send(.post, "/console/api/invoke", ["function": "secret", "user": .string(bob)])
            #expect(asBob.status == .ok && asBob["result"] == nil, "\(asBob)")
            #expect(asBob["error"]?["status"] == 401, "\(asBob)")
            let ownCall = try await api.post("/1.1/functions/secret", [:])
            #expect(ownCall.status == .unauthorized, "\(ownCall)")
            let asMaster = try await browser.send(.post, "/console/api/invoke", ["function": "secret"])
            #expect(asMaster["result"] == "internal ran", "\(asMaster)")
        }
    }

    @Test func aFunctionRunsInEitherEnvironmentAsTheMasterOrAUserWithItsLogLines() async throws {
        try await Self.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            let signedUp = try await api.post("/1.1/users", ["username": "ada", "password": "secret-pass"])
            let ada = try #require(signedUp.objectId, "\(signedUp)")
            let sessions = try await api.find("_Session", headers: Headers.master).results.count

            let production = try await browser.send(.post, "/console/api/invoke", ["function": "hello", "params": ["n": 1]])
            #expect(production.status == .ok && production["environment"] == "production", "\(production)")
            #expect(production["result"] == ["tag": "v1", "who": "master", "n": 1], "\(production)")
            #expect(production["logs"] == ["info: hello from v1 for master"], "\(production)")

            let staging = try await browser.send(
                .post, "/console/api/invoke", ["function": "hello", "environment": "staging", "user": .string(ada), "params": ["n": 2]])
            #expect(staging["result"] == ["tag": "v2", "who": "ada", "n": 2], "\(staging)")
            // The host acted for the user: no session token was made, none reached the function or the page.
            #expect(staging["logs"] == ["info: hello from v2 for ada"], "\(staging)")
            #expect(!staging.text.contains("sessionToken"), "\(staging)")
            #expect(try await api.find("_Session", headers: Headers.master).results.count == sessions)

            // A function's own failure is the call's outcome, with its lines.
            let failed = try await browser.send(.post, "/console/api/invoke", ["function": "fail"])
            #expect(failed.status == .ok && failed["error"]?["code"] == 142 && failed["error"]?["error"] == "no luck", "\(failed)")
            #expect(failed["logs"] == ["info: about to fail"], "\(failed)")
            let missing = try await browser.send(.post, "/console/api/invoke", ["function": "nope"])
            #expect(missing["error"]?["code"] == 1 && missing["error"]?["status"] == 404, "\(missing)")
            let nobody = try await browser.send(.post, "/console/api/invoke", ["function": "hello", "user": "abc123"])
            #expect(nobody["error"]?["code"] == 211, "\(nobody)")

            // The lines are the environment's logs too, as the logs page reads them.
            let logs = try await browser.send(.get, "/console/api/1.1/engine/logs?environment=staging")
            #expect(logs.results.contains { $0["message"] == "hello from v2 for ada" }, "\(logs)")
        }
    }

    @Test func aMalformedInvocationIsRefused() async throws {
        try await Self.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            let bodies: [JSONValue] = [
                [:], ["function": ""], ["function": 3], ["function": .string(String(repeating: "f", count: 129))],
                ["function": "hello", "environment": "qa"], ["function": "hello", "environment": 1],
                ["function": "hello", "params": [1, 2]], ["function": "hello", "params": "x"],
                ["function": "hello", "user": "../_User"], ["function": "hello", "user": 7],
                ["function": "hello", "user": .string(String(repeating: "a", count: 65))],
                ["function": "hello", "user": ["__type": "Pointer", "className": "_User", "objectId": "x"]],
            ]
            for body in bodies {
                let reply = try await browser.send(.post, "/console/api/invoke", body)
                expectError(reply, code: 107, status: .badRequest)
            }
            for raw in ["[]", "\"hello\"", "{", "null"] {
                let reply = try await api.send(.post, "/console/api/invoke", headers: browser.headers(extra: [("Content-Type", "application/json")]), body: raw)
                #expect(reply.status == .badRequest && reply["code"] != nil, "\(raw): \(reply)")
            }
        }
    }

    @Test func theMetricsAndVariablesPagesReadWhatTheHostServes() async throws {
        try await Self.run { api in
            let browser = try await ConsoleBrowser.loggedIn(api)
            _ = try await browser.send(.post, "/console/api/invoke", ["function": "hello"])
            let metrics = try await browser.send(.get, "/console/api/metrics")
            #expect(metrics.status == .ok && metrics.header("Content-Type")?.hasPrefix("text/plain") == true, "\(metrics)")
            #expect(metrics.text.contains(#"functionhost_function_duration_seconds_count{"#) && metrics.text.contains(#"function="hello""#))

            let set = try await browser.send(
                .put, "/console/api/1.1/engine/variables", ["environment": "staging", "set": ["API_TOKEN": "s3cr3t-value"], "secret": true])
            #expect(set.status == .ok && set["secrets"] == ["API_TOKEN"], "\(set)")
            let listed = try await browser.send(.get, "/console/api/1.1/engine/variables?environment=staging")
            for reply in [set, listed] { #expect(!reply.text.contains("s3cr3t-value"), "\(reply)") }
        }
    }
}
