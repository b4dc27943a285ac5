import HTTPTypes
import Foundation
import JSON
import TestSupport
import Testing

@testable import FunctionHost

/// The console in a real browser: headless Chromium, driven by `scripts/console-e2e.sh`
/// (Selenium), against a host on a loopback port, one browser session for every step. It logs
/// in, opens a class, filters, edits a value and sees it stored, adds and deletes a row, changes
/// a field permission, invokes a function in staging and in production (as a user), promotes
/// and rolls back, sees a log line appear, and visits every page; each page's screenshot is
/// written under the test's data directory (`console-screenshots`), kept for review.
@Suite struct ConsoleEndToEndTests {
    /// The cloud code a version runs: `hello` answers its tag and who called, logging a line.
    static func cloudCode(_ tag: String) -> String {
        """
        AV.Cloud.define('hello', function (request) {
          var who = request.currentUser ? request.currentUser.get('username') : 'master';
          console.log('hello from \(tag) for ' + who);
          return '\(tag) ' + who;
        });
        AV.Cloud.beforeSave('Note', function () {});
        """
    }

    @Test func theConsoleWorksInABrowser() async throws {
        let directory = try TestServer.makeDataDirectory()
        let functions = directory + "/functions"
        try FileManager.default.createDirectory(atPath: functions, withIntermediateDirectories: true)
        try Self.cloudCode("v1").write(toFile: functions + "/cloud.js", atomically: true, encoding: .utf8)
        let screenshots = directory + "/console-screenshots"
        let outcome = try await TestServer.run(dataDirectory: directory, functionsDirectory: functions, transport: .socket) { api in
            _ = try await api.create("Todo", ["title": "Milk", "priority": 1])
            _ = try await api.create("Todo", ["title": "Bread", "priority": 3])
            let user = try await api.post("/1.1/users", ["username": "ada", "password": "secret-pass"])
            #expect(user.status == .created, "\(user)")
            // Staging runs v2, production the directory's v1: the page promotes and rolls back.
            let deployed = try await api.post(
                "/1.1/engine/deploys", headers: Headers.master,
                ["environment": "staging", "message": "v2 for the console", "files": ["cloud.js": .string(Self.cloudCode("v2"))]])
            #expect(deployed.status == .created, "\(deployed)")
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = environment["HOME"] ?? directory
            return try await ChildProcess.run(
                "/bin/bash", [SMTPTestServer.root + "/scripts/console-e2e.sh", "http://127.0.0.1:\(api.port)", "master", screenshots],
                environment: environment)
        }
        let output = String(decoding: outcome.output + outcome.errors, as: UTF8.self)
        #expect(outcome.status == 0, "\(output)")
        let shots = (try? FileManager.default.contentsOfDirectory(atPath: screenshots)) ?? []
        #expect(shots.filter { $0.hasSuffix(".png") }.count >= 18, "\(shots)")
        print("console screenshots: \(screenshots)")
    }
}
