import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Issue 23, item 8, over real HTTP on both engines: one anonymous client pumping SMS to number
/// after number, attacker text in messages sent under the app's name, and the send limits that
/// stop them (per client, per app, across hosts, under concurrency, on email and signup too).
@Suite struct SMSAbuseTests {
    /// How many messages went out (the outbox, as the master key reads it).
    static func sentCount(_ api: API) async throws -> Int {
        let reply = try await api.find("_Outbox", ["count": "1", "limit": "0"], headers: Headers.master)
        if reply.status == .notFound { return 0 }
        return try #require(reply["count"]?.intValue.map(Int.init), "\(reply)")
    }

    static func phone(_ index: Int) -> String { "1380000\(String(format: "%04d", index))" }

    /// Two hosts on one database (one SQLite file, or one PostgreSQL schema), with one clock and
    /// one configuration.
    static func twoHosts(
        clock: TestClock = TestClock(), configure: @escaping @Sendable (inout HostConfiguration) -> Void,
        _ body: @Sendable (API, API) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let setUp: @Sendable (inout HostConfiguration) -> Void = {
            $0.clock = { clock.now }
            configure(&$0)
        }
        try await TestServer.run(dataDirectory: directory, configure: setUp) { a in
            try await TestServer.run(dataDirectory: directory, configure: setUp) { b in try await body(a, b) }
        }
    }

    @Test func twentyNumbersInARowFromOneAnonymousClientAreNotAllSent() async throws {
        try await VerificationTests.run { api in
            var statuses: [HTTPResponse.Status] = []
            for index in 0..<20 {
                let reply = try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": .string(Self.phone(index))])
                statuses.append(reply.status)
                if reply.status != .ok { expectError(reply, code: 601, status: .tooManyRequests) }
            }
            // The default: ten an hour from one address; the other ten numbers get nothing.
            #expect(statuses.prefix(10).allSatisfy { $0 == .ok }, "\(statuses)")
            #expect(statuses.dropFirst(10).allSatisfy { $0 == .tooManyRequests }, "\(statuses)")
            #expect(try await Self.sentCount(api) == 10)
            #expect(try await Outbox.messages(api, to: Self.phone(15)).isEmpty)
            // The master key (the operator's backend) is not counted.
            let master = try await api.post("/1.1/requestSmsCode", headers: Headers.master, ["mobilePhoneNumber": .string(Self.phone(30))])
            #expect(master.status == .ok, "\(master)")
        }
    }

    @Test func aNumberOrAddressWrittenAnotherWayIsCountedAsOne() async throws {
        try await VerificationTests.run(configure: { $0.publicURL = "https://api.example.com" }) { api in
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "+8613812345678"]).status == .ok)
            for other in ["13812345678", "008613812345678"] {
                expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": .string(other)]), code: 601)
            }
            // One mailbox, its address cased two ways (two accounts, one inbox): one mail a
            // minute, whichever way the address is written.
            for (index, email) in ["Target@Victim.test", "target@VICTIM.test"].enumerated() {
                let signup = try await api.post("/1.1/users", ["username": .string("t\(index)"), "password": "pw", "email": .string(email)])
                #expect(signup.status == .created, "\(signup)")
            }
            let before = try await Self.sentCount(api)
            let first = try await api.post("/1.1/requestEmailVerify", ["email": "Target@Victim.test"])
            #expect(first.status == .ok, "\(first)")
            expectError(try await api.post("/1.1/requestEmailVerify", ["email": "target@VICTIM.test"]), code: 1)
            #expect(try await Self.sentCount(api) == before + 1)
        }
    }

    @Test func theClientsWindowReopensAndRefusedRequestsDontFillIt() async throws {
        let clock = TestClock()
        try await VerificationTests.run(clock: clock, configure: { $0.messageProtection.limits.perClient = .init(count: 2, period: 3600) }) { api in
            // Requests that send nothing (an unknown user, a number asked too often) don't count.
            expectError(try await api.post("/1.1/requestLoginSmsCode", ["mobilePhoneNumber": "13900000000"]), code: 213)
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000001"]).status == .ok)
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000001"]), code: 601)
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000002"]).status == .ok)
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000003"]), code: 601, status: .tooManyRequests)
            clock.advance(minutes: 61)
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000003"]).status == .ok)
            #expect(try await Self.sentCount(api) == 3)
        }
    }

    @Test func theLimitsHoldAcrossHosts() async throws {
        try await Self.twoHosts(configure: {
            $0.messageProtection.limits.perClient = .init(count: 3, period: 3600)
            $0.messageProtection.limits.perApp = .init(count: 5, period: 86_400)
        }) { a, b in
            var answers: [Int] = []
            for index in 0..<5 {
                let host = index.isMultiple(of: 2) ? a : b
                answers.append(try await host.post("/1.1/requestSmsCode", ["mobilePhoneNumber": .string(Self.phone(index))]).status.code)
            }
            // Three from this address, whichever host it asked.
            #expect(answers == [200, 200, 200, 429, 429], "\(answers)")
            #expect(try await Self.sentCount(a) == 3)
        }
    }

    @Test func theAppWideLimitHoldsAcrossHosts() async throws {
        try await Self.twoHosts(configure: {
            $0.messageProtection.limits.perClient = nil
            $0.messageProtection.limits.perApp = .init(count: 4, period: 86_400)
            $0.publicURL = "https://api.example.com"
        }) { a, b in
            for index in 0..<4 {
                let reply = try await (index < 2 ? a : b).post("/1.1/requestSmsCode", ["mobilePhoneNumber": .string(Self.phone(index))])
                #expect(reply.status == .ok, "\(reply)")
            }
            expectError(try await a.post("/1.1/requestSmsCode", ["mobilePhoneNumber": .string(Self.phone(9))]), code: 601)
            expectError(try await b.post("/1.1/requestSmsCode", ["mobilePhoneNumber": .string(Self.phone(9))]), code: 601)
            // Email has a window of its own.
            _ = try await a.post("/1.1/users", headers: Headers.master, ["username": "ann", "password": "pw", "email": "ann@example.com"])
            #expect(try await b.post("/1.1/requestEmailVerify", ["email": "ann@example.com"]).status == .ok)
        }
    }

    @Test(arguments: 0..<8) func racingRequestsNeverPassTheLimit(round: Int) async throws {
        try await Self.twoHosts(configure: { $0.messageProtection.limits.perClient = .init(count: 5, period: 3600) }) { a, b in
            let answers = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let reply = try await (index.isMultiple(of: 2) ? a : b).post(
                            "/1.1/requestSmsCode", ["mobilePhoneNumber": .string(Self.phone(100 * round + index))])
                        return reply.status.code
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let sent = answers.filter { $0 == 200 }.count
            // Never more than the limit; under a race a few more may be refused than a lock would.
            #expect(Set(answers).isSubset(of: [200, 429]), "\(answers)")
            #expect(sent <= 5, "\(answers)")
            #expect(try await Self.sentCount(a) == sent)
        }
    }

    @Test func attackerTextNeverReachesAnSMS() async throws {
        try await VerificationTests.run { api in
            let attempts: [JSONValue] = [
                ["mobilePhoneNumber": "13800000020", "name": "Your Bank", "op": "confirm a transfer"],
                ["mobilePhoneNumber": "13800000020", "op": "visit https://evil.example and enter"],
                ["mobilePhoneNumber": "13800000020", "name": "FunctionHost", "op": "pay"],
                ["mobilePhoneNumber": "13800000020", "template": "Promo", "sign": "Bank"],
            ]
            expectError(try await api.post("/1.1/requestSmsCode", attempts[0]), code: 600, status: .badRequest)
            expectError(try await api.post("/1.1/requestSmsCode", attempts[1]), code: 1, status: .badRequest)
            expectError(try await api.post("/1.1/requestSmsCode", attempts[2]), code: 1, status: .badRequest)
            expectError(try await api.post("/1.1/requestSmsCode", attempts[3]), code: 604, status: .badRequest)
            #expect(try await Self.sentCount(api) == 0)
            // The app's own name is accepted, and so is no name or op at all.
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000020", "name": "FunctionHost"]).status == .ok)
            let text = try #require(try await Outbox.messages(api, to: "13800000020").first?["text"]?.stringValue)
            #expect(text.hasPrefix("[FunctionHost] Your code to verify it's you is "), "\(text)")
        }
    }

    @Test func configuredNamesAndOperationsAreAccepted() async throws {
        let clock = TestClock()
        try await VerificationTests.run(clock: clock, configure: {
            $0.verification.appName = "Shop"
            $0.messageProtection.operations = ["pay", "delete your account"]
        }) { api in
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000021", "name": "FunctionHost"]), code: 600)
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000021", "op": "win a prize"]), code: 1)
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000021", "name": "Shop", "op": "pay"]).status == .ok)
            let text = try #require(try await Outbox.messages(api, to: "13800000021").first?["text"]?.stringValue)
            #expect(text.hasPrefix("[Shop] Your code to pay is "), "\(text)")
            clock.advance(minutes: 2)
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000021", "op": "delete your account"]).status == .ok)
            let second = try #require(try await Outbox.messages(api, to: "13800000021").first?["text"]?.stringValue)
            #expect(second.hasPrefix("[Shop] Your code to delete your account is "), "\(second)")
        }
    }

    @Test func emailLinksAreLimitedPerClient() async throws {
        try await VerificationTests.run(configure: {
            $0.messageProtection.limits.perClient = .init(count: 3, period: 3600)
            $0.publicURL = "https://api.example.com"
        }) { api in
            for index in 0..<5 {
                _ = try await api.post(
                    "/1.1/users", headers: Headers.master, ["username": .string("u\(index)"), "password": "pw", "email": .string("u\(index)@example.com")])
            }
            var answers: [Int] = []
            for index in 0..<5 {
                let path = index.isMultiple(of: 2) ? "/1.1/requestPasswordReset" : "/1.1/requestEmailVerify"
                answers.append(try await api.post(path, ["email": .string("u\(index)@example.com")]).status.code)
            }
            #expect(answers == [200, 200, 200, 429, 429], "\(answers)")
            #expect(try await Self.sentCount(api) == 3)
            // SMS has a window of its own.
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000022"]).status == .ok)
        }
    }

    @Test func signupMessagesCountTowardTheLimits() async throws {
        try await VerificationTests.run(configure: {
            $0.verification.verifyPhoneOnSignup = true
            $0.messageProtection.limits.perClient = .init(count: 2, period: 3600)
        }) { api in
            for index in 0..<4 {
                let signup = try await api.post(
                    "/1.1/users", ["username": .string("s\(index)"), "password": "pw", "mobilePhoneNumber": .string(Self.phone(40 + index))])
                // The users exist either way; only the messages are held back.
                #expect(signup.status == .created, "\(signup)")
            }
            #expect(try await Self.sentCount(api) == 2)
            #expect(try await Outbox.messages(api, to: Self.phone(43)).isEmpty)
        }
    }
}
