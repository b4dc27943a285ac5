import HTTPTypes
import Foundation
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The console in a real browser: headless Chromium, driven by `scripts/console-e2e.sh`
/// (Selenium), against a host on a loopback port. It logs in, opens a class, filters, edits a
/// value and sees it stored, adds and deletes a row, and logs out; each page's screenshot is
/// written under the test's data directory (`console-screenshots`), kept for review.
@Suite struct ConsoleEndToEndTests {
    @Test func theConsoleWorksInABrowser() async throws {
        let directory = try TestServer.makeDataDirectory()
        let screenshots = directory + "/console-screenshots"
        let outcome = try await TestServer.run(dataDirectory: directory, transport: .socket) { api in
            _ = try await api.create("Todo", ["title": "Milk", "priority": 1])
            _ = try await api.create("Todo", ["title": "Bread", "priority": 3])
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = environment["HOME"] ?? directory
            return try await ChildProcess.run(
                "/bin/bash", [SMTPTestServer.root + "/scripts/console-e2e.sh", "http://127.0.0.1:\(api.port)", "master", screenshots],
                environment: environment)
        }
        let output = String(decoding: outcome.output + outcome.errors, as: UTF8.self)
        #expect(outcome.status == 0, "\(output)")
        let shots = (try? FileManager.default.contentsOfDirectory(atPath: screenshots)) ?? []
        #expect(shots.filter { $0.hasSuffix(".png") }.count >= 9, "\(shots)")
        print("console screenshots: \(screenshots)")
    }
}
