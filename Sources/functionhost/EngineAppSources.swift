import Foundation

/// Gathers an engine app's folder for `deploy --engine`: every regular file by relative path, as
/// base64, with its executable bit; without what the app's install step makes on the host
/// (`node_modules`, a Python venv), version control and caches.
enum EngineAppSources {
    /// Folders never sent, at any depth.
    static let skipped: Set<String> = [
        "node_modules", ".git", ".hg", ".svn", "__pycache__", ".venv", "venv", ".leancloud", ".build", ".DS_Store",
    ]
    /// The most bytes sent, as the host bounds a bundle.
    static let maxBytes = 12 * 1024 * 1024

    /// `{path: {"data": base64, "executable": bool}}` for the files below `directory`. Links
    /// are not followed (a link could lead out of the app, or round in a cycle); they are named in
    /// `skippedLinks`.
    static func collect(in directory: String) throws(ClientFailure) -> (files: [String: Any], skippedLinks: [String]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ClientFailure(message: "\(directory) is not a folder")
        }
        var files: [String: Any] = [:]
        var links: [String] = []
        var total = 0
        try walk(root: directory, relative: "", into: &files, links: &links, total: &total)
        if files.isEmpty { throw ClientFailure(message: "no files under \(directory); nothing to deploy") }
        return (files, links)
    }

    private static func walk(
        root: String, relative: String, into files: inout [String: Any], links: inout [String], total: inout Int
    ) throws(ClientFailure) {
        let names = try DeploySources.entries(of: relative.isEmpty ? root : "\(root)/\(relative)")
        for name in names.sorted() where !skipped.contains(name) {
            let path = relative.isEmpty ? name : "\(relative)/\(name)"
            let full = "\(root)/\(path)"
            let attributes = try? FileManager.default.attributesOfItem(atPath: full)
            switch attributes?[.type] as? FileAttributeType {
            case .typeDirectory?:
                try walk(root: root, relative: path, into: &files, links: &links, total: &total)
            case .typeRegular?:
                // Sized before it is read: a 3 GB file is refused without holding it.
                total += (attributes?[.size] as? NSNumber)?.intValue ?? 0
                guard total <= maxBytes, let data = FileManager.default.contents(atPath: full), data.count <= maxBytes else {
                    throw ClientFailure(
                        message: "the app's files pass \(maxBytes / 1024 / 1024) MB (without node_modules and venvs), or \(full) can't be read; nothing was sent")
                }
                let mode = (attributes?[.posixPermissions] as? NSNumber)?.intValue ?? 0o644
                files[path] = ["data": data.base64EncodedString(), "executable": mode & 0o100 != 0]
            case .typeSymbolicLink?:
                links.append(path)
            default:
                continue
            }
        }
    }
}
