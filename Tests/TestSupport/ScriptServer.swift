import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real server the tests run from one of the repository's scripts (`scripts/smtp-server.sh`,
/// `scripts/s3-server.sh`): started with `posix_spawn`, ready once it prints its first line (the
/// wait is bounded and only fails the test; a first run installs the server before it), and
/// stopped by closing its standard input (then SIGTERM, and a wait).
package struct ScriptServer: Sendable {
    /// The first line it printed: what it tells of itself (its port, its URL).
    package let readyLine: String
    private let pid: pid_t
    private let input: Int32

    /// The repository's root (this file is in Tests/TestSupport).
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// Starts `scripts/<script>` with `arguments`; throws unless its first line starts with `ready `.
    package static func start(_ script: String, _ arguments: [String]) async throws -> ScriptServer {
        var output: [Int32] = [0, 0], input: [Int32] = [0, 0]
        guard pipe(&output) == 0, pipe(&input) == 0 else { throw Failure("pipe failed") }
        for descriptor in output + input { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        let argv = (["/bin/bash", "\(root)/scripts/\(script)"] + arguments).map { strdup($0) } + [nil]
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
        let reader = output[0]
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
        let server = ScriptServer(readyLine: line ?? "", pid: pid, input: input[1])
        guard let line, line.hasPrefix("ready ") else {
            server.stop()
            throw Failure("\(script) did not start: \(line ?? "no line within 180 s")")
        }
        // Its later output is left unread: the pipe's end closes with the process.
        return server
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

    /// Closes its standard input (its signal to stop) and waits for it.
    package func stop() {
        close(input)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
    }

    /// A server that did not start.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }
}
