package import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs a program as a child process with `posix_spawn`, its output and errors read to the end.
///
/// Not Foundation's `Process`: on Linux its `run()` reads `/proc/self/fd` with a 256-byte copy
/// of each directory entry and now and then reads past glibc's buffer into an unmapped page
/// (swift-corelibs-foundation #5472, in the Swift 6.3.1 toolchain), which crashed a whole test
/// run that spawns the CLI many times. Closing every inherited descriptor is left to the child's
/// spawn (`addclosefrom`), which reads nothing.
package enum ChildProcess {
    /// What a run printed, and how it exited.
    package struct Outcome: Sendable {
        /// The exit status (128 + the signal's number when a signal ended it).
        package var status: Int32
        /// Its standard output.
        package var output: Data
        /// Its standard error.
        package var errors: Data
    }

    /// Runs `path` with `arguments` and exactly `environment`; `input` is its standard input
    /// (small enough for a pipe's buffer), else it reads nothing. Waits on threads of its own,
    /// so a server answering the child in this process keeps every task thread.
    package static func run(
        _ path: String, _ arguments: [String], environment: [String: String], input: Data? = nil
    ) async throws -> Outcome {
        let output = try Pipe(), errors = try Pipe(), stdin = try Pipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var spawnedPID: pid_t = 0
        let spawned = posix_spawn(&spawnedPID, path, &actions, nil, argv, envp)
        let pid = spawnedPID
        close(stdin.read)
        close(output.write)
        close(errors.write)
        if let input, spawned == 0 {
            _ = input.withUnsafeBytes { write(stdin.write, $0.baseAddress, $0.count) }
        }
        close(stdin.write)
        guard spawned == 0 else {
            close(output.read)
            close(errors.read)
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
        }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let errorsRead = Reader(errors.read)
                let printed = Self.readAll(output.read)
                var status: Int32 = 0
                while waitpid(pid, &status, 0) == -1, errno == EINTR {}
                let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                continuation.resume(returning: Outcome(status: code, output: printed, errors: errorsRead.wait()))
            }
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 on), which the Glibc module
    /// doesn't declare: the child closes every descriptor from 3 on, as `Process` does, so it
    /// holds none of this process's sockets.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// A pipe's two descriptors, closed on exec so no other child inherits them.
    private struct Pipe {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            read = ends[0]
            write = ends[1]
            _ = fcntl(read, F_SETFD, FD_CLOEXEC)
            _ = fcntl(write, F_SETFD, FD_CLOEXEC)
        }
    }

    /// Reads a descriptor to its end on a thread of its own, then closes it.
    private final class Reader: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var data = Data()

        init(_ descriptor: Int32) {
            Thread.detachNewThread { [self] in
                data = ChildProcess.readAll(descriptor)
                done.signal()
            }
        }

        func wait() -> Data {
            done.wait()
            return data
        }
    }

    static func readAll(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno != EINTR {
                break
            }
        }
        close(descriptor)
        return data
    }
}
