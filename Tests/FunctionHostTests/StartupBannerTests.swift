import DataAPI
import Foundation
import JSON
import TestSupport
import Testing

/// A newcomer's first start: the server says, at once and while it runs (not when it exits,
/// as buffered output did through a pipe), the keys it generated and a request to paste.
@Suite struct StartupBannerTests {
    /// Starts `functionhost serve --host 127.0.0.1 ARGUMENTS` with no keys or public URL in its
    /// environment, and returns it still running (the caller ends it) with its banner.
    static func serve(_ arguments: [String]) async throws -> (Process, String) {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["serve", "--host", "127.0.0.1"] + arguments
        var environment = ProcessInfo.processInfo.environment
        for name in [
            "LEANCLOUD_APP_ID", "LEANCLOUD_APP_KEY", "LEANCLOUD_APP_MASTER_KEY", "LEANCLOUD_APP_HOOK_KEY",
            "FUNCTIONHOST_PUBLIC_URL",
        ] {
            environment[name] = nil
        }
        environment["LOG_LEVEL"] = "error"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        // Read until the banner's last line, while the server keeps running: a blocking read on
        // a thread of its own, so nothing waits on a timer.
        let reader = pipe.fileHandleForReading
        let text = await Task.detached { () -> String in
            var data = Data()
            while !String(decoding: data, as: UTF8.self).contains("Buy milk") {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                data.append(chunk)
            }
            return String(decoding: data, as: UTF8.self)
        }.value
        return (process, text)
    }

    @Test func theFirstStartPrintsTheGeneratedKeysAndACurlLineAtOnce() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = Ports.free()
        let (process, text) = try await Self.serve(
            ["--port", String(port), "--data-dir", directory + "/data", "--functions", directory])
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        #expect(process.isRunning, "the banner came while the server runs")
        let keys = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/data/keys.json"))))
        let appId = try #require(keys["appId"]?.stringValue, "\(keys)")
        let appKey = try #require(keys["appKey"]?.stringValue)
        let masterKey = try #require(keys["masterKey"]?.stringValue)
        #expect(text.contains("App ID:     \(appId)") && text.contains("App Key:    \(appKey)"), "\(text)")
        #expect(text.contains("Master Key: \(masterKey)"), "generated now, so shown once: \(text)")
        #expect(text.contains("curl -X POST http://127.0.0.1:\(port)/1.1/classes/Todo"), "\(text)")
        #expect(text.contains("-H \"X-LC-Id: \(appId)\" -H \"X-LC-Key: \(appKey)\""), "\(text)")
    }
}
