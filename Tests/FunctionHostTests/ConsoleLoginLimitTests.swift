import HTTPTypes
import Foundation
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// Console logins: a wrong key is refused as such, and one address gets a few attempts, then
/// waits, whatever key it tries next.
@Suite struct ConsoleLoginLimitTests {
    @Test func wrongKeysAreRefused() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestServer.run(dataDirectory: directory, configure: { $0.console.loginBurst = 100 }) { api in
            for key in ["", "masterx", "maste", "key", "hook", "master,master"] {
                let (reply, browser) = try await ConsoleBrowser.login(api, key: key)
                expectError(reply, code: 401, status: .unauthorized)
                #expect(browser == nil && reply.headers[values: .setCookie].isEmpty, "\(key): \(reply)")
            }
            let origin = Headers.make([("Origin", ConsoleBrowser.origin)])
            for body in ["{}", #"{"masterKey": 1}"#, "not json", #"{"masterKey": null}"#] {
                expectError(try await api.send(.post, "/console/login", headers: origin, body: body), code: 401, status: .unauthorized)
            }
            let large = try await api.send(.post, "/console/login", headers: origin, body: String(repeating: "a", count: 5000))
            #expect(large.status == .contentTooLarge, "\(large)")
        }
    }

    @Test func oneAddressGetsAFewAttemptsThenWaits() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // One attempt an hour regained: none comes back during the test.
        try await TestServer.run(dataDirectory: directory, configure: { $0.console.loginBurst = 3; $0.console.loginsPerMinute = 1.0 / 60 }) { api in
            for _ in 0..<2 { expectError(try await ConsoleBrowser.login(api, key: "guess").0, code: 401, status: .unauthorized) }
            #expect(try await ConsoleBrowser.login(api).1 != nil, "the third attempt, right, logs in")
            for key in ["guess", "master"] {
                let (reply, browser) = try await ConsoleBrowser.login(api, key: key)
                expectError(reply, code: 429, status: .tooManyRequests)
                #expect(browser == nil)
                #expect(Int(reply.header("Retry-After") ?? "") ?? 0 > 0, "\(reply.headers)")
            }
        }
    }
}
