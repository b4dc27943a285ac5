import Foundation
package import JSON

/// A real SMTP server for the mail tests: `scripts/smtp-server.sh` (aiosmtpd, in a venv made on
/// first use) on a free loopback port, writing each message it accepts as JSON into a folder
/// of its own before it answers 250. Started per test; ready once it prints its port (the
/// wait is bounded and only fails the test); stopped by closing its standard input.
package final class SMTPTestServer: Sendable {
    /// The port it listens on.
    package let port: Int
    /// Where it writes the messages.
    package let directory: String
    private let process: ScriptServer

    private init(port: Int, directory: String, process: ScriptServer) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// The repository's root.
    package static var root: String { ScriptServer.root }

    /// Starts a server with `arguments` (`--starttls CERT KEY`, `--tls CERT KEY`, `--auth USER
    /// PASSWORD`, `--auth-only LOGIN`, `--fail-first N`, `--hostile MODE`), runs `body`, stops it.
    package static func run<Value>(
        _ arguments: [String] = [], _ body: (SMTPTestServer) async throws -> Value
    ) async throws -> Value {
        let server = try await start(arguments)
        defer { server.stop() }
        return try await body(server)
    }

    /// The messages delivered so far, in order, as the server's Python parser read them.
    package func messages() throws -> [JSONValue] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { try JSONValue(parsing: Array(FileManager.default.contents(atPath: "\(directory)/\($0)") ?? Data())) }
    }

    /// A self-signed certificate for 127.0.0.1 and localhost made with the openssl CLI, valid a
    /// day: (certificate, key) paths in `directory`.
    package static func makeCertificate(in directory: String) async throws -> (certificate: String, key: String) {
        let certificate = "\(directory)/cert.pem", key = "\(directory)/key.pem"
        let made = try await ChildProcess.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ],
            environment: ["PATH": "/usr/bin:/bin"])
        guard made.status == 0 else { throw Failure("openssl: \(String(decoding: made.errors, as: UTF8.self))") }
        return (certificate, key)
    }

    private static func start(_ arguments: [String]) async throws -> SMTPTestServer {
        let directory = NSTemporaryDirectory() + "smtp-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // The first line is "ready PORT" (a first run installs aiosmtpd before it).
        let process: ScriptServer
        do {
            process = try await ScriptServer.start("smtp-server.sh", [directory] + arguments)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
        guard let port = Int(process.readyLine.dropFirst(6)) else {
            process.stop()
            try? FileManager.default.removeItem(atPath: directory)
            throw Failure("the SMTP server did not start: \(process.readyLine)")
        }
        return SMTPTestServer(port: port, directory: directory, process: process)
    }

    /// Stops it (`ScriptServer.stop`); its folder goes.
    package func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }
}
