import Crypto
package import Foundation
import NIOCore

/// Copies the files of a local directory into another store (`functionhost files migrate`),
/// each verified by reading it back: the SHA-256 of what the destination returns must be the
/// SHA-256 of what was read from disk. What is verified is written to a manifest beside the
/// files (`.migrated-<destination>`), so a run stopped anywhere is resumed by running it again:
/// keys the manifest holds, still in the destination with their size, are skipped. A key the
/// destination holds other bytes under is reported and never overwritten.
package struct FileMigration: Sendable {
    /// The directory the files are in.
    public let source: LocalFileStore
    /// Where they go.
    public let destination: any FileContentStore
    /// The manifest of verified keys: a line `key size sha256` for each.
    public let manifest: URL
    /// Called after each key (done or not); a throw stops the run there, as an interruption
    /// would (the keys before it are recorded).
    public var progress: (@Sendable (_ done: Int, _ key: String) async throws -> Void)?

    /// Keys listed from the source at a time.
    static let pageSize = 500

    /// A migration of `source` into `destination`, named `destinationName` in its manifest
    /// (`s3://bucket/prefix`): another destination has a manifest of its own.
    public init(source: LocalFileStore, destination: any FileContentStore, destinationName: String) {
        self.source = source
        self.destination = destination
        let digest = StoredContent.hex(SHA256.hash(data: Data(destinationName.utf8)).prefix(8))
        manifest = source.directory.appendingPathComponent(".migrated-\(digest)")
    }

    /// What a run did.
    public struct Report: Sendable, Equatable {
        /// Keys copied and verified by this run.
        public var copied: [String] = []
        /// Keys an earlier run verified, skipped.
        public var skipped = 0
        /// Keys the destination already held the same bytes under (verified, recorded).
        public var matched = 0
        /// Keys the destination holds other bytes under: left as they are, not migrated.
        public var conflicts: [String] = []
        /// Keys that failed (a read, a write, a check), with why.
        public var failures: [String] = []

        /// Whether every key is in the destination, verified.
        public var isComplete: Bool { conflicts.isEmpty && failures.isEmpty }
    }

    /// Copies every key not yet verified.
    public func run() async throws -> Report {
        var report = Report()
        let verified = try readManifest()
        var cursor: String?
        var done = 0
        while true {
            let page = try await source.listKeys(after: cursor, limit: Self.pageSize)
            guard let last = page.last else { break }
            cursor = last.key
            for entry in page {
                try await migrate(entry, verified: verified, into: &report)
                done += 1
                try await progress?(done, entry.key)
            }
        }
        return report
    }

    /// Brings one key into the destination, verified, unless it is there already.
    private func migrate(_ entry: StoredKey, verified: [String: Int], into report: inout Report) async throws {
        let key = entry.key
        let held = try await destination.size(ofKey: key)
        if let held, verified[key] == entry.size, held == entry.size {
            report.skipped += 1
            return
        }
        guard let local = try await source.read(key: key, entire: entry.size) else { return }
        let localDigest: String
        if held != nil {
            // Bytes already there that no run of ours verified: the same file, or another's.
            localDigest = try await Self.digest(of: local)
            guard try await digest(ofKey: key) == localDigest else {
                report.conflicts.append(key)
                return
            }
            report.matched += 1
        } else {
            do {
                localDigest = try await copy(local, to: key)
                guard try await digest(ofKey: key) == localDigest else {
                    try await destination.delete(key: key)
                    report.failures.append("\(key): what the destination gave back differs from what was sent")
                    return
                }
            } catch let error as DataAPIError {
                report.failures.append("\(key): \(error.message)")
                return
            }
            report.copied.append(key)
        }
        try record(key, size: entry.size, digest: localDigest)
    }

    /// Streams `content` into a new upload under `key`; the SHA-256 of what was read.
    private func copy(_ content: FileContentStream, to key: String) async throws -> String {
        var hash = SHA256()
        _ = try await destination.write(key: key) { upload in
            try await content.forEach { buffer in
                buffer.withUnsafeReadableBytes { hash.update(bufferPointer: $0) }
                try await upload.append(buffer)
            }
        }
        return StoredContent.hex(hash.finalize())
    }

    /// The SHA-256 of what the destination gives back for `key`; nil when it has none.
    private func digest(ofKey key: String) async throws -> String? {
        guard let size = try await destination.size(ofKey: key), let stream = try await destination.read(key: key, entire: size) else {
            return nil
        }
        return try await Self.digest(of: stream)
    }

    private static func digest(of stream: FileContentStream) async throws -> String {
        var hash = SHA256()
        try await stream.forEach { buffer in buffer.withUnsafeReadableBytes { hash.update(bufferPointer: $0) } }
        return StoredContent.hex(hash.finalize())
    }

    /// The keys verified by earlier runs, with their sizes.
    private func readManifest() throws -> [String: Int] {
        guard let text = try? String(contentsOf: manifest, encoding: .utf8) else { return [:] }
        var verified: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            // A line cut short by a crash is no record.
            guard words.count == 3, words[2].count == 64, let size = Int(words[1]) else { continue }
            verified[String(words[0])] = size
        }
        return verified
    }

    /// Appends a verified key to the manifest, on disk before the next key starts.
    private func record(_ key: String, size: Int, digest: String) throws {
        if !FileManager.default.fileExists(atPath: manifest.path) {
            FileManager.default.createFile(atPath: manifest.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: manifest)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("\(key) \(size) \(digest)\n".utf8))
        try handle.synchronize()
    }
}
