import DataAPI
import Foundation
import HTTPTypes
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Attacks on SMS codes with only the app key (issue 23, item 3), end to end on loopback:
/// guesses without a number (any pending code matches), concurrent guesses at one number's code,
/// and one client sweeping many numbers. Counts live in the database, so they hold on both
/// engines and across hosts.
@Suite struct AbuseCodeTests {
    /// A user with a phone number and a pending code to verify it; returns the code.
    static func pendingCode(_ api: API, phone: String) async throws -> String {
        let signup = try await api.post(
            "/1.1/users", ["username": .string("u" + phone), "password": "pw", "mobilePhoneNumber": .string(phone)])
        #expect(signup.status == .created, "\(signup)")
        #expect(try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": .string(phone)]).status == .ok)
        return try await Outbox.lastCode(api, to: phone)
    }

    /// `count` six-digit codes, none of them `code`.
    static func wrongCodes(_ count: Int, besides code: String) -> [String] {
        (0..<count + 1).map { String(format: "%06d", $0 * 7919 % 1_000_000) }.filter { $0 != code }.prefix(count).map { $0 }
    }

    static func isVerified(_ api: API, phone: String) async throws -> Bool {
        let users = try await api.find("_User", ["where": #"{"mobilePhoneNumber":"\#(phone)"}"#], headers: Headers.master)
        return users.results.first?["mobilePhoneVerified"] == true
    }

    /// One client sweeping code-only guesses (`verifyMobilePhone/{code}` with no number) stops
    /// counting as guesses after its budget: the right code, tried past it, verifies nothing.
    @Test func codeOnlyGuessesFromOneClientAreBounded() async throws {
        // The client is the connection's peer address.
        try await VerificationTests.run(transport: .socket) { api in
            let code = try await Self.pendingCode(api, phone: "13800000101")
            let limit = 30  // the default wrong codes per client and hour
            for guess in Self.wrongCodes(limit, besides: code) {
                expectError(try await api.post("/1.1/verifyMobilePhone/\(guess)", [:]), code: 603)
            }
            expectError(try await api.post("/1.1/verifyMobilePhone/\(code)", [:]), code: 603)
            #expect(try await Self.isVerified(api, phone: "13800000101") == false)
        }
    }

    /// The app-wide budget of code-only guesses holds whatever the addresses (here the
    /// per-client budget is set out of the way), and a client that names the number still
    /// verifies with its code.
    @Test func codeOnlyGuessesAreBoundedPerApp() async throws {
        try await VerificationTests.run(configure: { $0.verification.limits.maxWrongGuessesPerClient = 10_000 }) { api in
            let first = try await Self.pendingCode(api, phone: "13800000102")
            let second = try await Self.pendingCode(api, phone: "13800000103")
            let limit = 50  // the default code-only guesses per app and hour
            for guess in Self.wrongCodes(limit + 1, besides: first).filter({ $0 != second }).prefix(limit) {
                expectError(try await api.post("/1.1/verifyMobilePhone/\(guess)", [:]), code: 603)
            }
            expectError(try await api.post("/1.1/verifyMobilePhone/\(first)", [:]), code: 603)
            #expect(try await Self.isVerified(api, phone: "13800000102") == false)
            let named = try await api.post("/1.1/verifyMobilePhone/\(second)", ["mobilePhoneNumber": "13800000103"])
            #expect(named.status == .ok, "\(named)")
            #expect(try await Self.isVerified(api, phone: "13800000103"))
        }
    }

    /// Many wrong guesses at one number's code at once, repeated: the code takes exactly its
    /// five attempts (each counted before it is checked), then the right code no longer works.
    @Test func concurrentGuessesAtOneCodeTakeExactlyItsAttempts() async throws {
        // The client's own budget (30 an hour) is set out of the way: the code's is under test.
        try await VerificationTests.run(configure: { $0.verification.limits.maxWrongGuessesPerClient = 10_000 }) { api in
            let maxAttempts = 5  // guesses per code, as LeanCloud
            for round in 0..<4 {
                let phone = "1380000020\(round)"
                let code = try await Self.pendingCode(api, phone: phone)
                let guesses = Self.wrongCodes(20, besides: code).map { guess in
                    ConcurrentRequests.Request(
                        api: api, path: "/1.1/verifyMobilePhone/\(guess)", body: ["mobilePhoneNumber": .string(phone)])
                }
                let codes = try await ConcurrentRequests.codes(guesses)
                #expect(codes.allSatisfy { $0 == 603 }, "\(codes)")
                let stored = try await api.find(
                    "_VerificationCode", ["where": #"{"target":"\#(phone)"}"#], headers: Headers.master)
                #expect(stored.results.map { $0["attempts"] } == [JSONValue.int(Int64(maxAttempts))], "round \(round): \(stored)")
                expectError(try await api.post("/1.1/verifyMobilePhone/\(code)", ["mobilePhoneNumber": .string(phone)]), code: 603)
                #expect(try await Self.isVerified(api, phone: phone) == false)
            }
        }
    }

    /// One client guessing at many numbers (a few guesses each, under every code's own limit)
    /// runs out of wrong guesses for all of them, even sent at once, on two hosts sharing the
    /// database: the count is in the database, not in a host's memory.
    @Test func oneClientsWrongGuessesAreCountedAcrossNumbersAndHosts() async throws {
        // The client is the connections' peer address.
        try await AbuseLoginTests.twoHosts(transport: .socket) { a, b in
            let limit = 30  // the default wrong codes per client and hour
            var phones: [String] = []
            for index in 0..<8 {
                let phone = "1380000030\(index)"
                _ = try await Self.pendingCode(a, phone: phone)
                phones.append(phone)
            }
            let target = "13800000399"
            let code = try await Self.pendingCode(a, phone: target)
            // 40 wrong guesses spread over 8 numbers (5 each, every code's own budget) at once.
            let guesses = (0..<40).map { index in
                ConcurrentRequests.Request(
                    api: index.isMultiple(of: 2) ? a : b,
                    path: "/1.1/verifyMobilePhone/\(String(format: "%06d", 999_000 + index))",
                    body: ["mobilePhoneNumber": .string(phones[index % phones.count])])
            }
            #expect(try await ConcurrentRequests.codes(guesses).allSatisfy { $0 == 603 })
            let counters = try await a.find("_GuessCounter", [:], headers: Headers.master)
            #expect(counters.results.compactMap { $0["count"]?.intValue } == [Int64(limit)], "\(counters)")
            // Past its budget the client's right code, for a number it never guessed at, fails too.
            expectError(try await b.post("/1.1/verifyMobilePhone/\(code)", ["mobilePhoneNumber": .string(target)]), code: 603)
            #expect(try await Self.isVerified(a, phone: target) == false)
        }
    }
}
