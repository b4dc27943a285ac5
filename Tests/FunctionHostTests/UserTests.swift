import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import Synchronization
import TestSupport
import Testing

@testable import FunctionHost

/// Signup, login, sessions and passwords over real HTTP.
@Suite struct UserTests {
    static func run(
        clock: TestClock = TestClock(), transport: TestServer.Transport = .inProcess,
        _ body: @Sendable (API) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, transport: transport, configure: { $0.clock = { clock.now } }, body)
    }

    @Test func signupLoginAndTheCurrentUser() async throws {
        try await Self.run { api in
            let signup = try await api.post(
                "/1.1/users", ["username": "ada", "password": "analytical engine", "email": "ada@example.com"])
            #expect(signup.status == .created, "\(signup)")
            let token = try #require(signup["sessionToken"]?.stringValue)
            #expect(token.count == 25 && signup.objectId != nil)
            let me = try await api.get("/1.1/users/me", headers: Headers.session(token))
            #expect(me["username"] == "ada" && me["sessionToken"] == .string(token) && me["password"] == nil, "\(me)")
            for login: JSONValue in [
                ["username": "ada", "password": "analytical engine"], ["email": "ada@example.com", "password": "analytical engine"],
            ] {
                let reply = try await api.post("/1.1/login", login)
                #expect(reply["objectId"] == signup["objectId"] && reply["sessionToken"] == .string(token), "\(reply)")
            }
            expectError(try await api.post("/1.1/login", ["username": "ada", "password": "wrong"]), code: 210, status: .badRequest)
            expectError(try await api.post("/1.1/login", ["username": "nobody", "password": "x"]), code: 211, status: .badRequest)
            expectError(try await api.get("/1.1/users/me", headers: Headers.session("nope")), code: 211, status: .badRequest)
            // /classes/_User signs up too.
            let other = try await api.post("/1.1/classes/_User", ["username": "bob", "password": "pw", "mobilePhoneNumber": "13800000000"])
            #expect(other.status == .created && other["sessionToken"] != nil, "\(other)")
            let byPhone = try await api.post("/1.1/login", ["mobilePhoneNumber": "13800000000", "password": "pw"])
            #expect(byPhone["username"] == "bob")
        }
    }

    @Test func duplicatesAndMissingFieldsAreRefused() async throws {
        try await Self.run { api in
            _ = try await api.post("/1.1/users", ["username": "ada", "password": "pw", "email": "a@x.com", "mobilePhoneNumber": "1"])
            expectError(try await api.post("/1.1/users", ["username": "ada", "password": "pw"]), code: 202, status: .badRequest)
            expectError(try await api.post("/1.1/users", ["username": "b", "password": "pw", "email": "a@x.com"]), code: 203, status: .badRequest)
            expectError(
                try await api.post("/1.1/users", ["username": "c", "password": "pw", "mobilePhoneNumber": "1"]), code: 214,
                status: .badRequest)
            expectError(try await api.post("/1.1/users", ["password": "pw"]), code: 200, status: .badRequest)
            expectError(try await api.post("/1.1/users", ["username": "d"]), code: 201, status: .badRequest)
            expectError(
                try await api.post("/1.1/users", ["username": "e", "password": "pw", "sessionToken": "mine"]), code: 117,
                status: .badRequest)
        }
    }

    @Test func passwordsAreNeverStoredOrShownInClear() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory) { api in
            let signup = try await api.post("/1.1/users", ["username": "ada", "password": "correct horse battery staple"])
            let id = try #require(signup.objectId)
            let token = try #require(signup["sessionToken"]?.stringValue)
            let fetched = try await api.get("/1.1/users/\(id)", headers: Headers.master)
            #expect(fetched["password"] == nil && fetched["sessionToken"] == nil, "\(fetched)")
            let changed = try await api.put(
                "/1.1/users/\(id)/updatePassword", headers: Headers.session(token),
                ["old_password": "correct horse battery staple", "new_password": "tr0ub4dor&3"])
            #expect(changed["sessionToken"] != nil && changed["sessionToken"] != .string(token), "\(changed)")
        }
        let database = try await TestDatabase.storedBytes(dataDirectory: directory, classes: ["_User"])
        #expect(!database.isEmpty)
        for secret in ["correct horse battery staple", "tr0ub4dor&3"] {
            #expect(database.range(of: Data(secret.utf8)) == nil, "\(secret) is in the database file")
        }
    }

    @Test func sessionsCanBeRefreshedAndEnded() async throws {
        try await Self.run { api in
            let signup = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            let id = try #require(signup.objectId)
            let first = try #require(signup["sessionToken"]?.stringValue)
            let refreshed = try await api.put("/1.1/users/\(id)/refreshSessionToken", headers: Headers.session(first), [:])
            let second = try #require(refreshed["sessionToken"]?.stringValue)
            #expect(second != first)
            expectError(try await api.get("/1.1/users/me", headers: Headers.session(first)), code: 211, status: .badRequest)
            // A logout ends no session: a user has one token, shared by its devices (SessionWireTests).
            _ = try await api.post("/1.1/logout", headers: Headers.session(second), [:])
            #expect(try await api.get("/1.1/users/me", headers: Headers.session(second))["username"] == "ada")
            let again = try await api.post("/1.1/login", ["username": "ada", "password": "pw"])
            #expect(again["sessionToken"] == .string(second))
            expectError(
                try await api.put("/1.1/users/\(id)/updatePassword", headers: Headers.session("nope"), ["old_password": "pw", "new_password": "x"]),
                code: 206, status: .badRequest)
        }
    }

    @Test func aUserChangesOnlyItselfAndFindsOnlyItself() async throws {
        try await Self.run { api in
            let ada = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            let bob = try await api.post("/1.1/users", ["username": "bob", "password": "pw"])
            let adaToken = try #require(ada["sessionToken"]?.stringValue)
            let adaId = try #require(ada.objectId)
            let bobId = try #require(bob.objectId)
            #expect(try await api.put("/1.1/users/\(adaId)", headers: Headers.session(adaToken), ["nickname": "countess"]).status == .ok)
            expectError(try await api.put("/1.1/users/\(bobId)", headers: Headers.session(adaToken), ["nickname": "x"]), code: 206, status: .badRequest)
            expectError(try await api.put("/1.1/users/\(bobId)", ["nickname": "x"]), code: 206, status: .badRequest)
            expectError(try await api.delete("/1.1/users/\(bobId)", headers: Headers.session(adaToken)), code: 206, status: .badRequest)
            // `_User` find is closed by default: a client finds its own user only (LeanCloud's rule).
            #expect(try await api.get("/1.1/users").results.isEmpty)
            #expect(try await api.get("/1.1/users", headers: Headers.session(adaToken)).results.map { $0["objectId"]?.stringValue } == [adaId])
            #expect(try await api.get("/1.1/users", headers: Headers.master).results.count == 2)
            #expect(try await api.delete("/1.1/users/\(adaId)", headers: Headers.session(adaToken)).status == .ok)
        }
    }

    @Test func sevenFailuresLockTheAccountForFifteenMinutesAfterTheLast() async throws {
        let clock = TestClock()
        try await Self.run(clock: clock) { api in
            _ = try await api.post("/1.1/users", ["username": "ada", "password": "pw", "email": "ada@example.com"])
            for _ in 1...6 {
                expectError(try await api.post("/1.1/login", ["username": "ada", "password": "bad"]), code: 210, status: .badRequest)
                clock.advance(minutes: 1)
            }
            #expect(try await api.post("/1.1/login", ["username": "ada", "password": "pw"]).status == .ok, "six failures don't lock")
            for _ in 1...6 { _ = try await api.post("/1.1/login", ["username": "ada", "password": "bad"]) }
            expectError(try await api.post("/1.1/login", ["username": "ada", "password": "bad"]), code: 210, status: .badRequest)
            let locked = try await api.post("/1.1/login", ["email": "ada@example.com", "password": "pw"])
            expectError(locked, code: 1, status: .badRequest)
            #expect(locked["error"]?.stringValue?.hasPrefix("You have exceeded the maximum number of login attempts") == true)
            clock.advance(minutes: 14)
            expectError(try await api.post("/1.1/login", ["username": "ada", "password": "pw"]), code: 1, status: .badRequest)
            clock.advance(minutes: 1.5)
            #expect(try await api.post("/1.1/login", ["username": "ada", "password": "pw"]).status == .ok, "unlocked")
        }
    }

    @Test func beforeSaveOnUserRunsOnSignup() async throws {
        var functions = FunctionRegistry()
        functions.hooks.beforeSave("_User") { request in
            guard request.object["username"]?.stringValue?.hasPrefix("admin") != true else {
                throw HookError(message: "That name is reserved.")
            }
            request.object["plan"] = "free"
        }
        try await TestServer.run(functions: functions) { api in
            let signup = try await api.post("/1.1/users", ["username": "ada", "password": "pw"])
            #expect(signup["plan"] == "free", "\(signup)")
            let refused = try await api.post("/1.1/users", ["username": "admin1", "password": "pw"])
            #expect(refused["code"] == 142, "\(refused)")
        }
    }
}
