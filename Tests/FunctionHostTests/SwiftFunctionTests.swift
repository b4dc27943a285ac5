import DataAPI
import Foundation
import Functions
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Swift cloud functions through `/functions/{name}` and `/call/{name}`, over real HTTP.
@Suite struct SwiftFunctionTests {
    struct Failure: Error {}

    /// The shipped examples plus functions that exercise each answer the protocol defines.
    static var registry: FunctionRegistry {
        var registry = FunctionRegistry()
        Functions.register(into: &registry)
        registry.define("echo") { request in request.params }
        registry.define("me") { request -> JSONValue in request.currentUser?["username"] ?? .null }
        registry.define("whoami", options: .init(fetchesUser: false)) { request -> [String: String] in
            ["environment": request.environment.rawValue, "session": request.sessionToken ?? "", "master": "\(request.isMaster)"]
        }
        registry.define("refuse") { _ -> String in throw CloudError(code: 123, message: "Not today.", status: .conflict) }
        registry.define("crash") { _ -> String in throw Failure() }
        registry.define("slow", options: .init(timeout: .milliseconds(100))) { _ -> String in
            try await Task.sleep(for: .seconds(60))
            return "late"
        }
        registry.define("secret", options: .init(isInternal: true)) { _ in "internal" }
        registry.define("object") { _ in
            ["__type": "Object", "className": "Todo", "objectId": "abc", "title": "x",
             "when": ["__type": "Date", "iso": "2020-01-01T00:00:00.000Z"]]
        }
        return registry
    }

    @Test(arguments: ["/1.1/functions/swiftHello", "/1/functions/swiftHello", "/1.1/call/swiftHello"])
    func helloAnswersOnEveryPath(path: String) async throws {
        try await TestServer.run(functions: Self.registry) { api in
            let post = try await api.post(path, [:])
            #expect(post.status == .ok, "\(post)")
            #expect(post.json == ["result": "Hello world!"])
            let get = try await api.get(path)
            #expect(get.json == ["result": "Hello world!"], "functions answer GET too")
        }
    }

    @Test func theDataAPIWritesAndQueries() async throws {
        try await TestServer.run(functions: Self.registry) { api in
            for (title, priority) in [("low", 1), ("high", 3), ("mid", 2)] {
                let reply = try await api.post("/1.1/functions/addTodo", ["title": .string(title), "priority": .int(Int64(priority))])
                #expect(reply.status == .ok, "\(reply)")
                let id = try #require(reply["result"]?["objectId"]?.stringValue)
                #expect(try await api.fetch("Todo", id)["title"] == .string(title), "written through the same service")
            }
            let urgent = try await api.post("/1.1/functions/urgentTodos", ["minimum": 2])
            #expect(urgent.json == ["result": ["high", "mid"]], "\(urgent)")
            let invalid = try await api.post("/1.1/functions/addTodo", ["title": 5])
            expectError(invalid, code: 1, status: .badRequest)
            let empty = try await api.post("/1.1/functions/addTodo", ["title": ""])
            expectError(empty, code: 1, status: .badRequest)
        }
    }

    @Test func errorsCarryTheirStatusAndCode() async throws {
        try await TestServer.run(functions: Self.registry) { api in
            expectError(try await api.post("/1.1/functions/nope", [:]), code: 1, status: .notFound)
            expectError(try await api.post("/1.1/functions/refuse", [:]), code: 123, status: .conflict)
            let crash = try await api.post("/1.1/functions/crash", [:])
            #expect(crash.status == .internalServerError)
            #expect(crash["code"] == 141, "\(crash)")
            let slow = try await api.post("/1.1/functions/slow", [:])
            #expect(slow.status == .serviceUnavailable)
            #expect(slow["code"] == 124, "\(slow)")
            // The host keeps serving after each of them.
            #expect(try await api.post("/1.1/functions/swiftHello", [:]).json == ["result": "Hello world!"])
        }
    }

    @Test func internalFunctionsNeedTheMasterKey() async throws {
        try await TestServer.run(functions: Self.registry) { api in
            expectError(try await api.post("/1.1/functions/secret", [:]), code: 401, status: .unauthorized)
            let master = try await api.post("/1.1/functions/secret", headers: Headers.master, [:])
            #expect(master.json == ["result": "internal"], "\(master)")
        }
    }

    @Test func metadatasListsEveryNameForTheMasterKeyOnly() async throws {
        try await TestServer.run(functions: Self.registry) { api in
            let reply = try await api.get("/1.1/functions/_ops/metadatas", headers: Headers.master)
            let names = reply["result"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(names == Self.registry.names)
            #expect(names.contains("swiftHello") && names.contains("addTodo"))
            expectError(try await api.get("/1.1/functions/_ops/metadatas"), code: 401, status: .unauthorized)
        }
    }

    @Test func requestCarriesSessionEnvironmentAndParams() async throws {
        try await TestServer.run(functions: Self.registry) { api in
            var headers = Headers.client
            headers[HTTPField.Name("X-LC-Session")!] = "token-1"
            headers[HTTPField.Name("X-LC-Prod")!] = "0"
            let reply = try await api.post("/1.1/functions/whoami", headers: headers, [:])
            #expect(reply.json == ["result": ["environment": "staging", "session": "token-1", "master": "false"]])
            let production = try await api.post("/1.1/functions/whoami", headers: Headers.master, [:])
            #expect(production["result"]?["environment"] == "production")
            #expect(production["result"]?["master"] == "true")
            // Browsers send the keys inside a text/plain body; they are not parameters.
            let plain = try await api.send(
                .post, "/1.1/functions/echo", headers: Headers.make([("Content-Type", "text/plain")]),
                body: #"{"_ApplicationId":"app","_ApplicationKey":"key","a":1,"__keep":2}"#)
            #expect(plain.json == ["result": ["a": 1, "__keep": 2]], "\(plain)")
        }
    }

    @Test func currentUserComesFromTheSessionToken() async throws {
        try await TestServer.run(functions: Self.registry) { api in
            _ = try await api.post(
                "/1.1/classes/_User", headers: Headers.master, ["username": "ada", "sessionToken": "tok-ada"])
            var headers = Headers.client
            headers[HTTPField.Name("X-LC-Session")!] = "tok-ada"
            #expect(try await api.post("/1.1/functions/me", headers: headers, [:]).json == ["result": "ada"])
            #expect(try await api.post("/1.1/functions/me", [:]).json == ["result": nil], "no session, no user")
            headers[HTTPField.Name("X-LC-Session")!] = "tok-nobody"
            expectError(try await api.post("/1.1/functions/me", headers: headers, [:]), code: 211, status: .unauthorized)
            // fetchUser: false skips the lookup: the token reaches the function unchecked.
            let unchecked = try await api.post("/1.1/functions/whoami", headers: headers, [:])
            #expect(unchecked["result"]?["session"] == "tok-nobody", "\(unchecked)")
        }
    }

    @Test func rpcKeepsTypesWhileCallFunctionAnswersPlainJSON() async throws {
        try await TestServer.run(functions: Self.registry) { api in
            let plain = try await api.post("/1.1/functions/object", [:])
            #expect(plain["result"]?["__type"] == nil)
            #expect(plain["result"]?["className"] == nil)
            #expect(plain["result"]?["title"] == "x")
            let rpc = try await api.post("/1.1/call/object", [:])
            #expect(rpc["result"]?["__type"] == "Object")
            #expect(rpc["result"]?["className"] == "Todo")
            #expect(rpc["result"]?["when"] == ["__type": "Date", "iso": "2020-01-01T00:00:00.000Z"])
        }
    }
}
