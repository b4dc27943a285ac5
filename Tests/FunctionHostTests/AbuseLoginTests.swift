import DataAPI
import Foundation
import HTTPTypes
import TestSupport
import Testing

@testable import FunctionHost

/// Attacks on logins and passwords with only the app key (issue 23, items 4 and 6), end to end
/// on loopback: a lockout raced by concurrent wrong logins, on one host and on two sharing the
/// database; `updatePassword` as an unlimited password oracle; a stored hash chosen by the
/// client (or sent with the master key) that makes every later check burn CPU.
@Suite struct AbuseLoginTests {
    /// How many checks the lockout allows before it locks: the seventh failure locks.
    static let allowedChecks = 7

    /// Two hosts on one database (one SQLite file, or one PostgreSQL schema), with one clock.
    static func twoHosts(
        clock: TestClock = TestClock(), transport: TestServer.Transport = .inProcess,
        _ body: @Sendable (API, API) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, transport: transport, configure: { $0.clock = { clock.now } }) { a in
            try await TestServer.run(dataDirectory: directory, transport: transport, configure: { $0.clock = { clock.now } }) { b in
                try await body(a, b)
            }
        }
    }

    /// 24 wrong logins at once, spread over both hosts, repeated on fresh accounts: each time
    /// exactly seven passwords are checked (210) and every other attempt is refused as locked
    /// (1), as is the right password afterwards. Before, 14 to 16 were checked.
    @Test func concurrentWrongLoginsGetExactlyTheAllowedChecks() async throws {
        try await Self.twoHosts { a, b in
            for round in 0..<5 {
                let username = "victim\(round)"
                #expect(try await a.post("/1.1/users", ["username": .string(username), "password": "right-password"]).status == .created)
                let attempts = (0..<24).map { index in
                    ConcurrentRequests.Request(
                        api: index.isMultiple(of: 2) ? a : b, path: "/1.1/login",
                        body: ["username": .string(username), "password": .string("guess-\(index)")])
                }
                let codes = try await ConcurrentRequests.codes(attempts)
                #expect(codes.filter { $0 == 210 }.count == Self.allowedChecks, "round \(round): \(codes.sorted())")
                #expect(codes.filter { $0 == 1 }.count == 24 - Self.allowedChecks, "round \(round): \(codes.sorted())")
                expectError(try await b.post("/1.1/login", ["username": .string(username), "password": "right-password"]), code: 1)
            }
        }
    }

    /// A stolen session tries old passwords through `updatePassword`: each wrong one counts
    /// toward the lockout, so the eighth try is refused unchecked and so is a login.
    @Test func wrongOldPasswordsCountTowardTheLockout() async throws {
        try await UserTests.run { api in
            let signup = try await api.post("/1.1/users", ["username": "ada", "password": "right-password"])
            let id = try #require(signup.objectId)
            let session = Headers.session(try #require(signup["sessionToken"]?.stringValue))
            for index in 0..<Self.allowedChecks {
                expectError(
                    try await api.put(
                        "/1.1/users/\(id)/updatePassword", headers: session,
                        ["old_password": .string("guess-\(index)"), "new_password": "mine now"]),
                    code: 210)
            }
            expectError(
                try await api.put(
                    "/1.1/users/\(id)/updatePassword", headers: session,
                    ["old_password": "right-password", "new_password": "mine now"]),
                code: 1)
            expectError(try await api.post("/1.1/login", ["username": "ada", "password": "right-password"]), code: 1)
        }
    }

    /// Concurrent wrong `old_password`s get no more checks than logins do.
    @Test func concurrentWrongOldPasswordsGetExactlyTheAllowedChecks() async throws {
        try await UserTests.run { api in
            for round in 0..<3 {
                let signup = try await api.post("/1.1/users", ["username": .string("ada\(round)"), "password": "right-password"])
                let id = try #require(signup.objectId)
                let session = Headers.session(try #require(signup["sessionToken"]?.stringValue))
                let attempts = (0..<20).map { index in
                    ConcurrentRequests.Request(
                        api: api, method: .put, path: "/1.1/users/\(id)/updatePassword", headers: session,
                        body: ["old_password": .string("guess-\(index)"), "new_password": "mine now"])
                }
                let codes = try await ConcurrentRequests.codes(attempts)
                #expect(codes.filter { $0 == 210 }.count == Self.allowedChecks, "round \(round): \(codes.sorted())")
                #expect(codes.filter { $0 == 1 }.count == 20 - Self.allowedChecks, "round \(round): \(codes.sorted())")
            }
        }
    }

    /// A hash asking for ten million PBKDF2 rounds, in this host's stored format.
    static let costlyHash =
        "pbkdf2_sha256$10000000$" + Data(repeating: 7, count: 16).base64EncodedString() + "$"
        + Data(repeating: 9, count: 32).base64EncodedString()

    /// The client's `new_password` that looks like a stored hash is a password like any other:
    /// hashed, so the text itself logs in (at the normal cost), and no request chose the cost.
    @Test func aNewPasswordThatLooksLikeAHashIsHashed() async throws {
        try await UserTests.run { api in
            let signup = try await api.post("/1.1/users", ["username": "ada", "password": "first"])
            let id = try #require(signup.objectId)
            let session = Headers.session(try #require(signup["sessionToken"]?.stringValue))
            let changed = try await api.put(
                "/1.1/users/\(id)/updatePassword", headers: session,
                ["old_password": "first", "new_password": .string(Self.costlyHash)])
            #expect(changed.status == .ok, "\(changed)")
            try await Self.expectQuickLogin(api, username: "ada", password: Self.costlyHash)
        }
    }

    /// Nor does the master key store a hash through the API (only `import` does): its text is
    /// hashed too, on signup through `/users` and `/classes/_User`, on update, and in a reset.
    @Test func theMasterKeysHashLookingPasswordsAreHashed() async throws {
        try await UserTests.run { api in
            #expect(
                try await api.post("/1.1/users", headers: Headers.master, ["username": "ada", "password": .string(Self.costlyHash)])
                    .status == .created)
            try await Self.expectQuickLogin(api, username: "ada", password: Self.costlyHash)
            let bob = try await api.create("_User", ["username": "bob", "password": "pw"], headers: Headers.master)
            #expect(try await api.put("/1.1/users/\(bob)", headers: Headers.master, ["password": .string(Self.costlyHash)]).status == .ok)
            try await Self.expectQuickLogin(api, username: "bob", password: Self.costlyHash)
        }
    }

    /// Logs in with `password` and expects it to work: the text was hashed at the host's own cost.
    static func expectQuickLogin(
        _ api: API, username: String, password: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        // The login succeeding is the proof, with no clock: had the text been stored as the hash,
        // checking it would hash the text itself at the cost it names and never match.
        let login = try await api.post("/1.1/login", ["username": .string(username), "password": .string(password)])
        #expect(login.status == .ok, "\(login)", sourceLocation: sourceLocation)
    }

    /// A hash asking for two billion rounds: hours of CPU, were they spent.
    static let hopelessHash =
        "pbkdf2_sha256$2000000000$" + Data(repeating: 7, count: 16).base64EncodedString() + "$"
        + Data(repeating: 9, count: 32).base64EncodedString()

    /// A stored hash asking for more rounds than the cap (only `import` can store one now) fails
    /// at once: the login answers 210 without spending the rounds. They are so many that spent,
    /// the login would outlast the test's time limit by far; refused, it takes what any request
    /// takes, a second on a busy machine: the two can't be mistaken for each other. (The limit
    /// only stops a run that spends them; it also covers the wait for a PostgreSQL slot, which
    /// lasts until the tests started before this one have a server each: minutes, at the end
    /// of a run.)
    @Test(.timeLimit(.minutes(20))) func anImportedHashPastTheRoundsCapFailsWithoutTheWork() async throws {
        let directory = try TestServer.makeDataDirectory()
        let export = directory + "-export"
        defer {
            try? FileManager.default.removeItem(atPath: directory)
            try? FileManager.default.removeItem(atPath: export)
        }
        try ImportFixture.write(
            #"#filetype:JSON-streaming {"type":"Class","class":"_User"}"# + "\n"
                + #"{"objectId":"5f3de9c27a53400006b13999","username":"ada","password":"\#(Self.hopelessHash)"}"#,
            to: export + "/_User.0.jsonl")
        try await FunctionHostServer.withStorage(
            dataDirectory: directory, database: TestDatabase.location(for: directory), logger: .init(label: "import")
        ) { storage in
            var importer = ExportImporter(storage: storage)
            try await importer.importPath(export)
        }
        try await TestServer.run(dataDirectory: directory) { api in
            let started = ContinuousClock.now
            expectError(try await api.post("/1.1/login", ["username": "ada", "password": "anything"]), code: 210)
            let elapsed = ContinuousClock.now - started
            #expect(elapsed < .seconds(20), "the login took \(elapsed)")
        }
    }
}
