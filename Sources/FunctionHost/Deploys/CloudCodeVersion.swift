import Crypto
import DataAPI
import Foundation
import JSON

/// One deployed bundle of JavaScript cloud code: immutable once made, numbered from 1.
public struct CloudCodeVersion: Sendable, Hashable {
    /// The version's number.
    public var number: Int
    /// The files, path → source.
    public var files: [String: String]
    /// SHA-256 over the sorted paths and sources: equal bundles have equal hashes.
    public var hash: String
    /// What the deployer said of it.
    public var message: String
    /// Who deployed it (`user@host` from the CLI; `host` for the functions directory at start).
    public var author: String
    /// When it was deployed.
    public var createdAt: String
    /// The engine app it runs in the environment's own process, when it is one (`files` is then
    /// empty): its stored bundle and how it is started.
    var engine: Engine?

    /// An engine app's part of a version: the bundle's hash (its stored chunks' name), size and
    /// file count, and its manifest.
    struct Engine: Sendable, Hashable {
        var bundle: String
        var size: Int
        var fileCount: Int
        var manifest: EngineManifest

        /// As stored in the version's record.
        var record: JSONValue {
            ["bundle": .string(bundle), "size": .int(Int64(size)), "fileCount": .int(Int64(fileCount)), "manifest": manifest.record]
        }

        /// A stored record read back; nil when it isn't one.
        init?(record: JSONValue?) {
            guard let bundle = record?["bundle"]?.stringValue, let manifest = EngineManifest(record: record?["manifest"]) else { return nil }
            self.init(
                bundle: bundle, size: Int(record?["size"]?.intValue ?? 0), fileCount: Int(record?["fileCount"]?.intValue ?? 0),
                manifest: manifest)
        }

        init(bundle: String, size: Int, fileCount: Int, manifest: EngineManifest) {
            self.bundle = bundle
            self.size = size
            self.fileCount = fileCount
            self.manifest = manifest
        }
    }

    /// A bundle not stored yet (number 0, no time), with its hash.
    init(files: [String: String], message: String, author: String, engine: Engine? = nil) {
        self.init(
            number: 0, files: files, hash: engine?.bundle ?? Self.hash(of: files), message: message, author: author, createdAt: "",
            engine: engine)
    }

    /// A version as stored.
    init(
        number: Int, files: [String: String], hash: String, message: String, author: String, createdAt: String, engine: Engine? = nil
    ) {
        self.engine = engine
        self.number = number
        self.files = files
        self.hash = hash
        self.message = message
        self.author = author
        self.createdAt = createdAt
    }

    /// The hash of a bundle of files.
    public static func hash(of files: [String: String]) -> String {
        var hasher = SHA256()
        for (path, source) in files.sorted(by: { $0.key < $1.key }) {
            // NUL separators: no two different bundles run together into the same bytes.
            hasher.update(data: Data(path.utf8) + [0] + Data(source.utf8) + [0])
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The files in path order, as they are stored.
    var sortedFiles: [(name: String, source: String)] {
        files.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// The scripts in load order, as the sandbox takes them: every file but the timers.
    var scripts: [(name: String, source: String)] {
        sortedFiles.filter { $0.name != DeployTimers.file }
    }

    /// The version as the deploy API lists it (file names, not their sources).
    func summary(live: [EnvironmentName]) -> [String: JSONValue] {
        var summary: [String: JSONValue] = [
            "version": .int(Int64(number)), "hash": .string(hash), "message": .string(message),
            "createdAt": .string(createdAt), "author": .string(author), "files": .array(files.keys.sorted().map(JSONValue.string)),
            "live": .array(live.map { .string($0.rawValue) }),
        ]
        if let engine {
            summary["engine"] = ["size": .int(Int64(engine.size)), "fileCount": .int(Int64(engine.fileCount)), "run": .string(engine.manifest.run)]
        }
        return summary
    }
}
