import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// An engine's process, started by the host: `/bin/sh -c COMMAND` in the app's directory, in a
/// process group of its own (so stopping it stops what the shell started: `node`, `gunicorn`'s
/// workers), with exactly the environment it is given, its output read line by line.
///
/// Not Foundation's `Process`, whose `run()` on this toolchain can read past a buffer while it
/// lists `/proc/self/fd` (see the tests' `ChildProcess`); the child closes every inherited
/// descriptor past the three standard ones itself.
final class EngineProcess: Sendable {
    /// The process's id, which is also its group's.
    let pid: pid_t
    private let exit = ExitState()

    /// Its exit status once known, and who waits for it.
    private final class ExitState: Sendable {
        let state = Mutex<(status: Int32?, waiters: [CheckedContinuation<Int32, Never>])>((nil, []))
    }

    /// Starts `command` in `directory`; each line it prints (standard output or error) goes to
    /// `output`, on a thread of the process's own, until it closes them.
    init(
        command: String, directory: String, environment: [String: String],
        output: @escaping @Sendable (_ line: String, _ isError: Bool) -> Void
    ) throws {
        let out = try Self.pipe(), errors = try Self.pipe()
        let nothing = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { if nothing >= 0 { close(nothing) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if nothing >= 0 { posix_spawn_file_actions_adddup2(&actions, nothing, 0) }
        posix_spawn_file_actions_adddup2(&actions, out.write, 1)
        posix_spawn_file_actions_adddup2(&actions, errors.write, 2)
        if let closeFrom = Self.closeFrom { _ = closeFrom(&actions, 3) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Its own group, with the signals the host ignores or blocks back to their defaults.
        var noSignals = sigset_t(), defaults = sigset_t()
        sigemptyset(&noSignals)
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        // The directory and the command reach the shell as arguments, never spliced into its text.
        let script = "cd -- \"$1\" || exit 127; eval \"$2\""
        let words: [String] = ["/bin/sh", "-c", script, "sh", directory, command]
        let argv = words.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var spawned: pid_t = 0
        let result = posix_spawn(&spawned, "/bin/sh", &actions, &attributes, argv, envp)
        close(out.write)
        close(errors.write)
        guard result == 0 else {
            close(out.read)
            close(errors.read)
            throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO)
        }
        pid = spawned
        Self.readLines(out.read) { output($0, false) }
        Self.readLines(errors.read) { output($0, true) }
        let pid = spawned
        Thread.detachNewThread { [exit] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            // What the shell started and left behind (`cmd &`, a daemon that didn't leave the
            // group) goes with it: nothing would supervise it, and a restart would find it holding
            // the port. The group's id isn't reused while any member lives.
            kill(-pid, SIGKILL)
            let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            let waiters = exit.state.withLock { state in
                state.status = code
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: code) }
        }
    }

    /// Whether it has exited.
    var hasExited: Bool { exit.state.withLock { $0.status != nil } }

    /// Waits until it exits; answers its status (128 + the signal's number when a signal ended it).
    func waitUntilExit() async -> Int32 {
        await withCheckedContinuation { continuation in
            let status: Int32? = exit.state.withLock { state in
                if let status = state.status { return status }
                state.waiters.append(continuation)
                return nil
            }
            if let status { continuation.resume(returning: status) }
        }
    }

    /// Stops the whole group: SIGTERM, then SIGKILL if it is still there after `grace`.
    func stop(grace: Duration) async {
        guard !hasExited else { return }
        kill(-pid, SIGTERM)
        let stopped = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = await self.waitUntilExit()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: grace)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !stopped {
            kill(-pid, SIGKILL)
            _ = await waitUntilExit()
        }
        // What the group's other members (a shell's children) left running goes too.
        kill(-pid, SIGKILL)
    }

    /// Reads lines (at most 16 KB each; longer ones are cut) until the descriptor closes.
    private static func readLines(_ descriptor: Int32, _ line: @escaping @Sendable (String) -> Void) {
        Thread.detachNewThread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                pending.append(contentsOf: buffer[0..<count])
                while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    line(String(decoding: pending[..<end], as: UTF8.self))
                    pending.removeSubrange(...end)
                }
                if pending.count >= 16_384 {
                    line(String(decoding: pending, as: UTF8.self))
                    pending = []
                }
            }
            if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
            close(descriptor)
        }
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        // Closed on exec, so no other child (another engine) inherits them.
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return (ends[0], ends[1])
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 on), which the Glibc module
    /// doesn't declare.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// A free port on the loopback interface for the engine to listen on.
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) }
        }
        guard bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        guard named == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
