import DataAPI
import Foundation
import HTTPTypes
import Hooks
import JSON
import Synchronization
import TestSupport
import Testing

@testable import FunctionHost

/// The verification flows over real HTTP: SMS codes and email links, read back from the outbox
/// (where the default sender keeps every message), with a clock the tests move.
@Suite struct VerificationTests {
    /// Runs a server with the test clock, hooks from Swift, JavaScript files, and settings.
    static func run(
        clock: TestClock = TestClock(), functions: FunctionRegistry = FunctionRegistry(), scripts: [String: String] = [:],
        transport: TestServer.Transport = .inProcess, configure: @escaping (inout HostConfiguration) -> Void = { _ in }, _ body: @Sendable (API) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for (name, source) in scripts { try source.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8) }
        try await TestServer.run(
            dataDirectory: directory, functions: functions, functionsDirectory: directory, transport: transport,
            configure: {
                $0.clock = { clock.now }
                configure(&$0)
            }, body)
    }

    /// A user as the master key reads it.
    static func user(_ api: API, _ id: String) async throws -> JSONValue {
        try await api.fetch("_User", id, headers: Headers.master)
    }

    @Test func aPhoneIsVerifiedOnceWithItsCodeAndOnVerifiedRuns() async throws {
        let verified = Mutex<[String]>([])
        var functions = FunctionRegistry()
        functions.hooks.onVerified("sms") { request in
            verified.withLock { $0.append(request.object["objectId"]?.stringValue ?? "?") }
        }
        try await Self.run(functions: functions) { api in
            let signup = try await api.post(
                "/1.1/users", ["username": "ada", "password": "pw", "mobilePhoneNumber": "+8613800000001"])
            let id = try #require(signup.objectId)
            #expect(try await Self.user(api, id)["mobilePhoneVerified"] == false)
            // Nothing is sent on signup unless the settings say so.
            #expect(try await Outbox.messages(api, to: "+8613800000001").isEmpty)
            #expect(try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": "+8613800000001"]).status == .ok)
            let code = try await Outbox.lastCode(api, to: "+8613800000001")
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            let done = try await api.post("/1.1/verifyMobilePhone/\(code)", ["mobilePhoneNumber": "+8613800000001"])
            #expect(done.status == .ok && done.json == [:], "\(done)")
            #expect(try await Self.user(api, id)["mobilePhoneVerified"] == true)
            #expect(verified.withLock { $0 } == [id])
            // Single use.
            expectError(try await api.post("/1.1/verifyMobilePhone/\(code)", [:]), code: 603, status: .badRequest)
            // A verified number is sent nothing more.
            #expect(try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": "+8613800000001"]).status == .ok)
            #expect(try await Outbox.messages(api, to: "+8613800000001").count == 1)
            // Unknown, missing and malformed numbers.
            expectError(try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": "13999999999"]), code: 213)
            expectError(try await api.post("/1.1/requestMobilePhoneVerify", [:]), code: 212)
            expectError(try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": "call me"]), code: 127)
        }
    }

    @Test func codesAreRateLimitedExpireAndDieAfterWrongGuesses() async throws {
        let clock = TestClock()
        try await Self.run(clock: clock) { api in
            _ = try await api.post("/1.1/users", ["username": "bo", "password": "pw", "mobilePhoneNumber": "13800000002"])
            #expect(try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": "13800000002"]).status == .ok)
            // A second code within the minute is refused, for any purpose.
            expectError(
                try await api.post("/1.1/requestLoginSmsCode", ["mobilePhoneNumber": "13800000002"]), code: 601,
                status: .tooManyRequests)
            clock.advance(minutes: 11)
            // Ten minutes later the first code has expired.
            let expired = try await Outbox.lastCode(api, to: "13800000002")
            expectError(try await api.post("/1.1/verifyMobilePhone/\(expired)", ["mobilePhoneNumber": "13800000002"]), code: 603)
            #expect(try await api.post("/1.1/requestMobilePhoneVerify", ["mobilePhoneNumber": "13800000002"]).status == .ok)
            let code = try await Outbox.lastCode(api, to: "13800000002")
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<5 {
                expectError(try await api.post("/1.1/verifyMobilePhone/\(wrong)", ["mobilePhoneNumber": "13800000002"]), code: 603)
            }
            // Five wrong guesses used the code up: the right one no longer works.
            expectError(try await api.post("/1.1/verifyMobilePhone/\(code)", ["mobilePhoneNumber": "13800000002"]), code: 603)
            // Ten codes a day at most.
            for _ in 0..<8 {
                clock.advance(minutes: 2)
                #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000002"]).status == .ok)
            }
            clock.advance(minutes: 2)
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000002"]), code: 601)
            clock.advance(minutes: 24 * 60)
            #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000002"]).status == .ok)
        }
    }

    @Test func loginBySmsCodeAndResetBySmsCode() async throws {
        let clock = TestClock()
        try await Self.run(clock: clock) { api in
            let signup = try await api.post("/1.1/users", ["username": "cy", "password": "old", "mobilePhoneNumber": "13800000003"])
            let oldToken = try #require(signup["sessionToken"]?.stringValue)
            #expect(try await api.post("/1.1/requestLoginSmsCode", ["mobilePhoneNumber": "13800000003"]).status == .ok)
            let code = try await Outbox.lastCode(api, to: "13800000003")
            expectError(try await api.post("/1.1/login", ["mobilePhoneNumber": "13800000003", "smsCode": "999999x"]), code: 603)
            let login = try await api.post("/1.1/login", ["mobilePhoneNumber": "13800000003", "smsCode": .string(code)])
            #expect(login.status == .ok && login["sessionToken"] == .string(oldToken), "\(login)")
            // The code reached the phone, so the number is verified; the code is spent.
            #expect(login["mobilePhoneVerified"] == true)
            expectError(try await api.post("/1.1/login", ["mobilePhoneNumber": "13800000003", "smsCode": .string(code)]), code: 603)
            expectError(try await api.post("/1.1/requestLoginSmsCode", ["mobilePhoneNumber": "13800000099"]), code: 213)

            clock.advance(minutes: 2)
            #expect(try await api.post("/1.1/requestPasswordResetBySmsCode", ["mobilePhoneNumber": "13800000003"]).status == .ok)
            let reset = try await Outbox.lastCode(api, to: "13800000003")
            expectError(
                try await api.put("/1.1/resetPasswordBySmsCode/\(reset)", ["mobilePhoneNumber": "13800000003", "password": ""]),
                code: 201)
            let done = try await api.put(
                "/1.1/resetPasswordBySmsCode/\(reset)", ["mobilePhoneNumber": "13800000003", "password": "new"])
            #expect(done.status == .ok, "\(done)")
            expectError(try await api.post("/1.1/login", ["username": "cy", "password": "old"]), code: 210)
            let relogin = try await api.post("/1.1/login", ["username": "cy", "password": "new"])
            #expect(relogin.status == .ok && relogin["sessionToken"] != .string(oldToken), "\(relogin)")
            // The old session ended with the reset.
            expectError(try await api.get("/1.1/users/me", headers: Headers.session(oldToken)), code: 211)
        }
    }

    @Test func wrongSmsCodesCountTowardsTheLockout() async throws {
        let clock = TestClock()
        try await Self.run(clock: clock) { api in
            _ = try await api.post("/1.1/users", ["username": "di", "password": "pw", "mobilePhoneNumber": "13800000004"])
            for _ in 0..<7 {
                clock.advance(minutes: 1.5)
                #expect(try await api.post("/1.1/requestLoginSmsCode", ["mobilePhoneNumber": "13800000004"]).status == .ok)
                expectError(try await api.post("/1.1/login", ["mobilePhoneNumber": "13800000004", "smsCode": "abcdef"]), code: 603)
            }
            // Seven failures: even the right code is refused now.
            clock.advance(minutes: 1.5)
            _ = try await api.post("/1.1/requestLoginSmsCode", ["mobilePhoneNumber": "13800000004"])
            let code = try await Outbox.lastCode(api, to: "13800000004")
            expectError(
                try await api.post("/1.1/login", ["mobilePhoneNumber": "13800000004", "smsCode": .string(code)]), code: 1,
                status: .badRequest)
            // Every way of logging in with the number is locked, and it is the client's doing: 400.
            expectError(
                try await api.post("/1.1/usersByMobilePhone", ["mobilePhoneNumber": "13800000004", "smsCode": .string(code)]),
                code: 1, status: .badRequest)
        }
    }

    @Test func plainSmsCodesAndSignupByMobilePhone() async throws {
        let clock = TestClock()
        try await Self.run(clock: clock, configure: {
            // A name and an operation a client may ask for (SMSAbuseTests: no others).
            $0.verification.appName = "Shop"
            $0.messageProtection.operations = ["pay"]
        }) { api in
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "+86 138"]), code: 127)
            for ttl: JSONValue in [0, 1441] {
                expectError(
                    try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000005", "ttl": ttl]), code: 1,
                    status: .badRequest)
            }
            expectError(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000005", "ttl": "soon"]), code: 111)
            #expect(
                try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000005", "ttl": 5, "name": "Shop", "op": "pay"])
                    .status == .ok)
            let message = try #require(try await Outbox.messages(api, to: "13800000005").first)
            let text = try #require(message["text"]?.stringValue)
            #expect(text.contains("[Shop]") && text.contains("pay") && text.contains("5 minutes"), "\(text)")
            let code = try #require(message["smsCode"]?.stringValue)
            expectError(try await api.post("/1.1/verifySmsCode/123", ["mobilePhoneNumber": "13800000005"]), code: 603)
            #expect(try await api.post("/1.1/verifySmsCode/\(code)", ["mobilePhoneNumber": "13800000005"]).status == .ok)
            expectError(try await api.post("/1.1/verifySmsCode/\(code)", ["mobilePhoneNumber": "13800000005"]), code: 603)

            // usersByMobilePhone signs the number up the first time, logs it in afterwards.
            clock.advance(minutes: 2)
            _ = try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000006"])
            let first = try await api.post(
                "/1.1/usersByMobilePhone", ["mobilePhoneNumber": "13800000006", "smsCode": .string(try await Outbox.lastCode(api, to: "13800000006"))])
            #expect(first.status == .created && first["sessionToken"] != nil && first["mobilePhoneVerified"] == true, "\(first)")
            #expect(first["username"] == "13800000006")
            clock.advance(minutes: 2)
            _ = try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000006"])
            let again = try await api.post(
                "/1.1/usersByMobilePhone", ["mobilePhoneNumber": "13800000006", "smsCode": .string(try await Outbox.lastCode(api, to: "13800000006"))])
            #expect(again.status == .ok && again.objectId == first.objectId, "\(again)")
            expectError(try await api.post("/1.1/usersByMobilePhone", ["mobilePhoneNumber": "13800000006", "smsCode": "000"]), code: 603)
        }
    }

    @Test func changingThePhoneNumberNeedsTheSessionAndTheCode() async throws {
        try await Self.run { api in
            let signup = try await api.post("/1.1/users", ["username": "el", "password": "pw", "mobilePhoneNumber": "13800000007"])
            _ = try await api.post("/1.1/users", ["username": "fi", "password": "pw", "mobilePhoneNumber": "13800000008"])
            let session = Headers.session(try #require(signup["sessionToken"]?.stringValue))
            expectError(try await api.post("/1.1/requestChangePhoneNumber", ["mobilePhoneNumber": "13800000009"]), code: 206)
            expectError(
                try await api.post("/1.1/requestChangePhoneNumber", headers: session, ["mobilePhoneNumber": "13800000008"]), code: 214)
            #expect(
                try await api.post("/1.1/requestChangePhoneNumber", headers: session, ["mobilePhoneNumber": "13800000009"]).status
                    == .ok)
            let code = try await Outbox.lastCode(api, to: "13800000009")
            let changed = try await api.post(
                "/1.1/changePhoneNumber", headers: session, ["mobilePhoneNumber": "13800000009", "code": .string(code)])
            #expect(changed.status == .ok, "\(changed)")
            let user = try await Self.user(api, try #require(signup.objectId))
            #expect(user["mobilePhoneNumber"] == "13800000009" && user["mobilePhoneVerified"] == true, "\(user)")
        }
    }

    @Test func emailLinksVerifyTheAddressAndResetThePassword() async throws {
        try await Self.run(scripts: [
            "verified.js": """
            AV.Cloud.onVerified('email', function (request) {
              return new AV.Object('Audit').save({ verified: request.object.get('email'), user: request.currentUser.id }, { useMasterKey: true });
            });
            """
        ], configure: { $0.publicURL = "https://api.example.com" }) { api in
            let signup = try await api.post("/1.1/users", ["username": "gu", "password": "old", "email": "gu@example.com"])
            let id = try #require(signup.objectId)
            #expect(try await Self.user(api, id)["emailVerified"] == false)
            expectError(try await api.post("/1.1/requestEmailVerify", ["email": "nobody@example.com"]), code: 205)
            expectError(try await api.post("/1.1/requestEmailVerify", ["email": "not-an-address"]), code: 125)
            expectError(try await api.post("/1.1/requestEmailVerify", [:]), code: 204)
            #expect(try await api.post("/1.1/requestEmailVerify", ["email": "gu@example.com"]).status == .ok)
            let path = try await Outbox.lastLinkPath(api, to: "gu@example.com")
            #expect(path.hasPrefix("/1.1/emailVerify/"))
            // The link is opened in a browser: no app keys.
            let page = try await api.get(path, headers: Headers.none)
            #expect(page.status == .ok && page.text.contains("verified"), "\(page)")
            #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(try await Self.user(api, id)["emailVerified"] == true)
            let audits = try await api.find("Audit", headers: Headers.master).results
            #expect(audits.first?["verified"] == "gu@example.com" && audits.first?["user"] == .string(id), "\(audits)")
            #expect(try await api.get(path, headers: Headers.none).status == .badRequest)

            // Changing the address makes it unverified again.
            let session = Headers.session(try #require(signup["sessionToken"]?.stringValue))
            #expect(try await api.put("/1.1/users/\(id)", headers: session, ["email": "gu2@example.com"]).status == .ok)
            #expect(try await Self.user(api, id)["emailVerified"] == false)

            #expect(try await api.post("/1.1/requestPasswordReset", ["email": "gu2@example.com"]).status == .ok)
            let reset = try await Outbox.lastLinkPath(api, to: "gu2@example.com")
            #expect(reset.hasPrefix("/1.1/resetPassword/"))
            let form = try await api.get(reset, headers: Headers.none)
            #expect(form.status == .ok && form.text.contains("<form"), "\(form)")
            var formHeaders = Headers.none
            formHeaders[.contentType] = "application/x-www-form-urlencoded"
            let saved = try await api.send(.post, reset, headers: formHeaders, body: "password=s3cret%21")
            #expect(saved.status == .ok && saved.text.contains("changed"), "\(saved)")
            #expect(try await api.post("/1.1/login", ["username": "gu", "password": "s3cret!"]).status == .ok)
            // The link worked once.
            #expect(try await api.get(reset, headers: Headers.none).status == .badRequest)
            #expect(try await api.send(.post, reset, headers: formHeaders, body: "password=again").status == .badRequest)
        }
    }

    @Test func signupSendsVerificationsWhenConfigured() async throws {
        try await Self.run(configure: {
            $0.verification.verifyEmailOnSignup = true
            $0.verification.verifyPhoneOnSignup = true
            $0.publicURL = "https://api.example.com"
        }) { api in
            _ = try await api.post(
                "/1.1/users", ["username": "ha", "password": "pw", "email": "ha@example.com", "mobilePhoneNumber": "13800000010"])
            let link = try #require(try await Outbox.messages(api, to: "ha@example.com").first?["link"]?.stringValue)
            #expect(link.hasPrefix("https://api.example.com/1.1/emailVerify/"), "\(link)")
            #expect(try await Outbox.messages(api, to: "13800000010").first?["purpose"] == "verifyPhone")
        }
    }

    @Test func theOutboxAndCodesAreTheMasterKeys() async throws {
        try await Self.run { api in
            _ = try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000011"])
            expectError(try await api.find("_Outbox"), code: 119, status: .forbidden)
            expectError(try await api.find("_VerificationCode"), code: 119, status: .forbidden)
            expectError(try await api.post("/1.1/classes/_Outbox", ["to": "x"]), code: 119)
            let codes = try await api.find("_VerificationCode", headers: Headers.master).results
            #expect(codes.count == 1)
            // Only an HMAC of the code is kept (VerificationCodeSecretTests).
            let code = try await Outbox.lastCode(api, to: "13800000011")
            #expect(codes.first?["codeHash"]?.stringValue?.contains(code) == false)
            #expect(!codes.description.contains("\"\(code)\""))
        }
    }

    @Test func aWebhookSenderPostsEachMessage() async throws {
        try await WebhookReceiver.run { receiver in
            try await Self.run(configure: {
                $0.messageWebhook = URL(string: receiver.url("/messages"))
                $0.messageProtection.operations = ["fail"]
            }) { api in
                #expect(try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000012"]).status == .ok)
                let message = try #require(receiver.messages.first)
                #expect(message["to"] == "13800000012" && message["channel"] == "sms" && message["smsCode"]?.stringValue?.count == 6)
                #expect(receiver.hookKeys == ["hook"])
                // Nothing in the outbox: the webhook is the sender.
                #expect(try await Outbox.messages(api, to: "13800000012").isEmpty)
                // A receiver that fails fails the request with 602.
                let failed = try await api.post("/1.1/requestSmsCode", ["mobilePhoneNumber": "13800000013", "op": "fail"])
                #expect(failed.status == .badGateway && failed["code"] == 602, "\(failed)")
            }
        }
    }
}
