import Crypto
import DataAPI
import Foundation
import HTTPTypes
import JSON

/// The files of an engine app's deploy (`functionhost deploy DIR --engine`): the app's folder as
/// it is, without what its install step makes (`node_modules`, a venv), byte for byte. Stored
/// beside its version in the database (`DeployStore`), written out on each host that runs it
/// (`EngineReleases`).
struct EngineBundle: Sendable, Equatable {
    /// One file: its bytes and whether it is executable.
    struct File: Sendable, Equatable {
        var bytes: [UInt8]
        var executable = false
    }

    /// Path (relative, `/`-separated) → file.
    var files: [String: File]

    /// The most bytes a bundle holds, all files together: an app's source and its pages, sent in
    /// one request below the host's body limit (base64 makes 12 MB into 16).
    static let maxBytes = 12 * 1024 * 1024
    /// The most files a bundle holds.
    static let maxFiles = 5_000
    /// The longest path, in bytes, and the deepest folder nesting.
    static let maxPathBytes = 512
    static let maxDepth = 32

    /// Reads `{"path": "<base64>" | {"data": "<base64>", "executable": bool}}` as a deploy
    /// sends it; every bound is checked before anything is stored.
    init(json: JSONValue) throws(HostError) {
        guard case .object(let members) = json, !members.isEmpty else {
            throw Self.invalid("engine.files must be a non-empty object of path → base64 content")
        }
        guard members.count <= Self.maxFiles else { throw Self.invalid("an engine bundle holds at most \(Self.maxFiles) files") }
        var files: [String: File] = [:]
        var total = 0
        for (path, value) in members {
            guard Self.isValidPath(path) else {
                throw Self.invalid("'\(path.prefix(80))' is not a relative path of plain segments (no '..', '.', empty or hidden control characters)")
            }
            let text: String?
            var executable = false
            switch value {
            case .string(let data): text = data
            case .object(let file):
                text = file["data"]?.stringValue
                executable = file["executable"] == true
            default: text = nil
            }
            guard let text, let bytes = Data(base64Encoded: text) else {
                throw Self.invalid("'\(path.prefix(80))' has no base64 content")
            }
            total += bytes.count
            guard total <= Self.maxBytes else { throw Self.invalid("an engine bundle holds at most \(Self.maxBytes) bytes") }
            files[path] = File(bytes: Array(bytes), executable: executable)
        }
        // A file and a folder of the same name can't both be written out.
        for path in files.keys {
            var prefix = Substring(path)
            while let slash = prefix.lastIndex(of: "/") {
                prefix = prefix[..<slash]
                if files[String(prefix)] != nil { throw Self.invalid("'\(prefix)' is both a file and a folder") }
            }
        }
        self.files = files
    }

    /// A bundle of these files.
    init(files: [String: File]) {
        self.files = files
    }

    /// SHA-256 over the sorted paths, modes and bytes: equal bundles have equal hashes, and a
    /// bundle's folder on a host is named by it.
    var hash: String {
        var hasher = SHA256()
        for (path, file) in files.sorted(by: { $0.key < $1.key }) {
            hasher.update(data: Data(path.utf8) + [0, file.executable ? 1 : 0])
            hasher.update(data: Data(String(file.bytes.count).utf8) + [0])
            hasher.update(data: file.bytes)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// All its bytes.
    var size: Int { files.values.reduce(0) { $0 + $1.bytes.count } }

    /// The bundle as it is stored: `{"path": {"data", "executable"}}`, sorted, as JSON text.
    var archive: [UInt8] {
        let members = files.mapValues { file -> JSONValue in
            ["data": .string(Data(file.bytes).base64EncodedString()), "executable": .bool(file.executable)]
        }
        return JSONValue.object(members).jsonBytes
    }

    /// A stored archive read back.
    init(archive: [UInt8]) throws(HostError) {
        guard let json = try? JSONValue(parsing: archive) else { throw Self.invalid("a stored engine bundle is not readable") }
        try self.init(json: json)
    }

    /// A bundle path: relative, plain segments, no control characters, bounded.
    static func isValidPath(_ path: String) -> Bool {
        guard !path.isEmpty, path.utf8.count <= maxPathBytes, !path.hasPrefix("/") else { return false }
        guard path.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7f && $0 != "\\" }) else { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count <= maxDepth && parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// A bundle (or its manifest) refused: 400, code 107, with why.
    static func invalid(_ message: String) -> HostError {
        HostError(status: .badRequest, code: 107, message: "Invalid engine bundle: \(message).")
    }
}
