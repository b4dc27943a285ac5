import DataAPI
import Foundation
import HTTPTypes
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Where deployed engine apps are written out on this host: one folder per bundle
/// (`DATA_DIR/engines/releases/<hash>`), made once with its install step run in it, and shared
/// by every environment and every host process on the same data directory that runs it.
struct EngineReleases: Sendable {
    /// The folder the bundles' folders are in.
    let root: String

    /// How long an install step may run (`npm ci` of a large app).
    static let installTime: Duration = .seconds(600)
    /// The marker a finished folder holds: written last, so a folder without it is redone.
    static let marker = ".functionhost-installed"

    /// The folder `engine` runs in, written out from `load` and installed on first use. Refused
    /// (400) with the step's last output when its install step fails; nothing is left behind.
    func directory(
        for engine: CloudCodeVersion.Engine, load: () async throws -> EngineBundle?, environment: [String: String],
        output: @escaping @Sendable (String, Bool) -> Void
    ) async throws -> String {
        let folder = "\(root)/\(engine.bundle)"
        if FileManager.default.fileExists(atPath: "\(folder)/\(Self.marker)") { return folder }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // One maker per bundle, also across host processes sharing the data directory.
        let lock = try await FileLock.acquire("\(folder).lock")
        defer { lock.release() }
        if FileManager.default.fileExists(atPath: "\(folder)/\(Self.marker)") { return folder }
        try? FileManager.default.removeItem(atPath: folder)
        guard let bundle = try await load() else {
            throw HostError(status: .internalServerError, code: 1, message: "The engine bundle \(engine.bundle.prefix(12)) is not stored.")
        }
        do {
            try write(bundle, into: folder)
            // The steps together, not each, are held to `installTime`.
            let deadline = ContinuousClock.now + Self.installTime
            for step in engine.manifest.install {
                try await install(step, in: folder, until: deadline, environment: environment, output: output)
            }
            FileManager.default.createFile(atPath: "\(folder)/\(Self.marker)", contents: Data())
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        return folder
    }

    /// Writes every file, making its folders; the folder is new, so nothing in it (a link) can
    /// lead a path elsewhere.
    private func write(_ bundle: EngineBundle, into folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        for (path, file) in bundle.files.sorted(by: { $0.key < $1.key }) {
            let full = "\(folder)/\(path)"
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            guard FileManager.default.createFile(
                atPath: full, contents: Data(file.bytes), attributes: [.posixPermissions: file.executable ? 0o755 : 0o644])
            else {
                throw HostError(status: .internalServerError, code: 1, message: "The engine app's file \(path) could not be written.")
            }
        }
    }

    /// Runs one install step to its end, before `deadline`.
    private func install(
        _ step: String, in folder: String, until deadline: ContinuousClock.Instant, environment: [String: String],
        output: @escaping @Sendable (String, Bool) -> Void
    ) async throws {
        let tail = OutputTail()
        let process = try EngineProcess(command: step, directory: folder, environment: environment) { line, isError in
            tail.append(line)
            output(line, isError)
        }
        let status = await withTaskGroup(of: Int32?.self) { group in
            group.addTask { await process.waitUntilExit() }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let status else {
            await process.stop(grace: .seconds(5))
            throw HostError(
                status: .badRequest, code: 1, message: "The engine app's install steps ran past \(Self.installTime) (at '\(step)').")
        }
        guard status == 0 else {
            throw HostError(
                status: .badRequest, code: 1,
                message: "The engine app's install step '\(step)' failed with status \(status): \(tail.text)")
        }
    }
}

/// The last lines a process printed, for the message that says why it failed.
final class OutputTail: Sendable {
    private let lines = Mutex<[String]>([])
    /// How many lines are kept, and how much of each.
    static let count = 8
    static let lineLength = 300

    /// Keeps a line, dropping the oldest past `count`.
    func append(_ line: String) {
        lines.withLock { lines in
            lines.append(String(line.prefix(Self.lineLength)))
            if lines.count > Self.count { lines.removeFirst(lines.count - Self.count) }
        }
    }

    /// The kept lines, joined; "no output" without any.
    var text: String {
        let kept = lines.withLock { $0 }
        return kept.isEmpty ? "no output" : kept.joined(separator: " | ")
    }
}

/// An exclusive `flock` on a file, taken without blocking a thread: tried again every 50 ms.
struct FileLock: Sendable {
    private let descriptor: Int32

    /// Waits until the lock on `path` is this process's.
    static func acquire(_ path: String) async throws -> FileLock {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw HostError(status: .internalServerError, code: 1, message: "The lock \(path) could not be opened.")
        }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                close(descriptor)
                throw error
            }
        }
        return FileLock(descriptor: descriptor)
    }

    /// Lets the next waiter in.
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
