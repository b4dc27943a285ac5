import DataAPI
import Foundation
import TestSupport
import Testing

/// What `serve` says and refuses at start about the edge settings: a missing public URL, email
/// links that would need one, a malformed proxy list.
@Suite struct EdgeServeTests {
    @Test func withoutAPublicURLServeSaysEmailLinksAreOffAndKeepsItsKeysPrivate() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (process, text) = try await StartupBannerTests.serve([
            "--port", String(Ports.free()), "--data-dir", directory + "/data", "--functions", directory,
        ])
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        #expect(text.contains("Public URL: none: password-reset and verification emails are refused"), "\(text)")
        #expect(try EdgeSecretsAttackTests.mode(directory + "/data") == 0o700)
        #expect(try EdgeSecretsAttackTests.mode(directory + "/data/keys.json") == 0o600)
    }

    @Test func serveRefusesSettingsThatCannotWork() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = ["--data-dir", directory + "/data", "--functions", directory]
        let cases: [([String], String)] = [
            (["--verify-email-on-signup"], "--verify-email-on-signup needs --public-url"),
            (["--trusted-proxies", "proxy.example.com"], "--trusted-proxies takes IP addresses"),
            (["--public-url", "api.example.com"], "--public-url needs an http(s) URL"),
            (["--signature-window", "0"], "--signature-window must be at least 1"),
        ]
        for (arguments, message) in cases {
            let run = try await CLI.functionhost(["serve"] + data + arguments, port: 1)
            #expect(run.status != 0 && run.errors.contains(message), "\(arguments): \(run)")
        }
    }
}
