import DataAPI
import Foundation
import Testing

/// A newcomer's first start: the server says, at once and while it runs (not when it exits,
/// as buffered output did through a pipe), the keys it generated and a request to paste.
@Suite struct StartupBannerTests {
    @Test func theFirstStartPrintsTheGeneratedKeysAndACurlLineAtOnce() async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try MetricsTests.freePort()
        let process = Process()
        process.executableURL = CLITests.executable
        process.arguments = [
            "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", directory + "/data", "--functions", directory,
        ]
        var environment = ProcessInfo.processInfo.environment
        for name in ["LEANCLOUD_APP_ID", "LEANCLOUD_APP_KEY", "LEANCLOUD_APP_MASTER_KEY", "LEANCLOUD_APP_HOOK_KEY"] {
            environment[name] = nil
        }
        environment["LOG_LEVEL"] = "error"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
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
