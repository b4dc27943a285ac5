import Foundation
import HTTPTypes
import JSON
import Sandbox
import TestSupport
import Testing

@testable import FunctionHost

/// Over HTTP: a function past its share of the JavaScript workers, with its line full, answers
/// 429 `{"code": 429, "error"}` at once, not a 503 after its deadline.
@Suite struct FunctionShareHTTPTests {
    /// Holds its worker lease for seconds without using CPU: a timer.
    static let cloud = """
        AV.Cloud.define('slow', function () { return new Promise(function (resolve) { setTimeout(resolve, 3000, 'late'); }); });
        """

    @Test func pastItsShareAndAFullLineAFunctionAnswers429() async throws {
        try await JSDataServer.run(
            ["cloud.js": Self.cloud], configure: { $0.javaScriptPool = CloudCode.Pool(workers: 2, queueLength: 0) }
        ) { api in
            _ = try await JSDataServer.makeUser(api, "alice", token: "alice-token")
            _ = try await JSDataServer.makeUser(api, "bob", token: "bob-token")
            let first = Task { try await api.post("/1.1/functions/slow", headers: JSDataServer.session("alice-token"), [:]) }
            // Polled until Alice's call is in flight (it holds the one worker of two `slow` may have).
            while try await MetricsTests.sample(
                api.get("/metrics", headers: Headers.master).text, "functionhost_sandbox_active_calls",
                #"environment="production""#) != 1
            {
                try await Task.sleep(for: .milliseconds(5))
            }
            // Bob is another client: he'd need a worker of his own, past `slow`'s share.
            expectError(
                try await api.post("/1.1/functions/slow", headers: JSDataServer.session("bob-token"), [:]), code: 429,
                status: .tooManyRequests)
            #expect(try await first.value.status == .ok)
        }
    }
}
