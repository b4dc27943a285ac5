package import FunctionHost
import Foundation
package import HTTPTypes
package import Testing

/// The engine tests' LeanEngine apps: real apps written with LeanCloud's Python SDK
/// (`Tests/EngineApps/python/<name>`), started by the host through `--engine-command` with
/// `scripts/leanengine-python.sh`, whose venv is made once per machine.
package enum EngineAppFixture {
    /// Makes the apps' venv (the SDK from PyPI, pinned) if it isn't there yet.
    package static func preparePython() async throws {
        let made = try await ChildProcess.run(
            "/bin/bash", ["\(SMTPTestServer.root)/scripts/leanengine-python.sh", "--prepare"],
            environment: ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": NSTemporaryDirectory()])
        guard made.status == 0 else { throw SMTPTestServer.Failure("leanengine-python.sh: \(String(decoding: made.errors, as: UTF8.self))") }
    }

    /// The Python app `name`, run by the host on a port of its own.
    package static func pythonApp(_ name: String, startTimeout: Duration = .seconds(60)) -> EngineSetting {
        var setting = EngineSetting(
            .command("\(SMTPTestServer.root)/scripts/leanengine-python.sh wsgi.py", directory: "\(SMTPTestServer.root)/Tests/EngineApps/python/\(name)"))
        setting.port = Ports.free()
        setting.startTimeout = startTimeout
        return setting
    }

    /// Calls `function` until the engine serves it (anything but 503 and 404: an engine that is
    /// starting answers 503, one not registered yet 404), within `timeout`; answers that call.
    package static func waitUntilServing(
        _ api: API, function: String, headers: HTTPFields = Headers.client, timeout: Duration = .seconds(90),
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Reply {
        let deadline = ContinuousClock.now + timeout
        while true {
            let reply = try await api.post("/1.1/functions/\(function)", headers: headers, [:])
            if reply.status != .serviceUnavailable, reply.status != .notFound { return reply }
            guard ContinuousClock.now < deadline else {
                Issue.record("the engine didn't serve \(function) within \(timeout): \(reply)", sourceLocation: sourceLocation)
                return reply
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}
