import Foundation
package import JSON

#if canImport(Glibc)
import Glibc
#endif

/// A real SMTP server for the mail tests: `scripts/smtp-server.sh` (aiosmtpd, in a venv made on
/// first use) on a free loopback port, writing each message it accepts as JSON into a folder
/// of its own before it answers 250. Started per test; ready once it prints its port (the
/// wait is bounded and only fails the test); stopped by closing its standard input.
package final class SMTPTestServer: Sendable {
    /// The port it listens on.
    package let port: Int
    /// Where it writes the messages.
    package let directory: String
    private let pid: pid_t
    private let input: Int32

    private init(port: Int, directory: String, pid: pid_t, input: Int32) {
        self.port = port
        self.directory = directory
        self.pid = pid
        self.input = input
    }

    /// The repository's root (this file is in Tests/TestSupport).
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

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
        var output: [Int32] = [0, 0], input: [Int32] = [0, 0]
        guard pipe(&output) == 0, pipe(&input) == 0 else { throw Failure("pipe failed") }
        for descriptor in output + input { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        let script = "\(root)/scripts/smtp-server.sh"
        let argv = (["/bin/bash", script, directory] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/bash", &actions, nil, argv, envp)
        close(input[0])
        close(output[1])
        guard spawned == 0 else {
            close(input[1])
            close(output[0])
            throw Failure("posix_spawn: \(spawned)")
        }
        let server = SMTPTestServer(port: 0, directory: directory, pid: pid, input: input[1])
        let reader = output[0]
        // The first line is "ready PORT" (a first run installs aiosmtpd before it).
        let line = try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask { await Self.readLine(reader) }
            group.addTask {
                try await Task.sleep(for: .seconds(180))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let line, line.hasPrefix("ready "), let port = Int(line.dropFirst(6)) else {
            server.stop()
            throw Failure("the SMTP server did not start: \(line ?? "no line within 180 s")")
        }
        // Its later output (none) is left unread: the pipe's end closes with the process.
        return SMTPTestServer(port: port, directory: directory, pid: pid, input: input[1])
    }

    /// Reads one line on a thread of its own, then closes the descriptor (nil at its end).
    private static func readLine(_ descriptor: Int32) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var bytes: [UInt8] = []
                var byte: UInt8 = 0
                while Glibc.read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
                close(descriptor)
                continuation.resume(returning: bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    /// Closes its standard input (its signal to stop) and waits for it; its folder goes.
    package func stop() {
        close(input)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        try? FileManager.default.removeItem(atPath: directory)
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }
}
