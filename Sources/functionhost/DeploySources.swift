import Foundation
import Sandbox

/// Gathers the cloud code a deploy uploads: every `*.js` file below a folder, by relative path.
enum DeploySources {
    /// The source text of each `*.js` file below `directory`, keyed by its `/`-separated relative
    /// path; for a LeanEngine Node project, only `cloud.js` and the files it requires; and
    /// `timers.json` at its root, when there is one (unless `selecting` is false: only scripts).
    ///
    /// `node_modules` folders are skipped at any depth: the server runs cloud code in a sandbox
    /// without `require` of packages, and they would make the upload huge. Symbolic links to folders
    /// are not followed, so a link cycle cannot make the walk endless.
    static func collect(in directory: String, selecting: Bool = true) throws(ClientFailure) -> [String: String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ClientFailure(message: "\(directory) is not a folder")
        }
        var files: [String: String] = [:]
        try walk(root: directory, relative: "", into: &files)
        if files.isEmpty {
            throw ClientFailure(message: "no .js files under \(directory); nothing to deploy")
        }
        // A LeanEngine Node project deploys as it is: cloud.js and what it requires, not the
        // Express server around it.
        guard selecting else { return files }
        let markers: Set<String> = FileManager.default.fileExists(atPath: directory + "/package.json") ? ["package.json"] : []
        var selected = CloudCodeFiles.selected(files, markers: markers)
        // The timers the code runs on travel with it; the server checks them.
        selected[timersFile] = try timers(in: directory)
        return selected
    }

    /// The name of the timers a bundle carries, at its root (`[{name, function, cron | every,
    /// params?, environment?, user?}]`).
    static let timersFile = "timers.json"

    /// The text of `directory/timers.json`, or nil when there is none.
    private static func timers(in directory: String) throws(ClientFailure) -> String? {
        let path = directory + "/" + timersFile
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ClientFailure(message: "cannot read \(path) as UTF-8 text")
        }
        return text
    }

    /// The names in `folder`, or a failure naming it.
    static func entries(of folder: String) throws(ClientFailure) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw ClientFailure(message: "cannot read \(folder): \(error.localizedDescription)")
        }
    }

    /// Adds the `*.js` files in `root/relative` and its subfolders to `files`.
    private static func walk(root: String, relative: String, into files: inout [String: String]) throws(ClientFailure) {
        let names = try entries(of: relative.isEmpty ? root : "\(root)/\(relative)")
        // Sorted so any error names the same file on every run.
        for name in names.sorted() {
            let path = relative.isEmpty ? name : "\(relative)/\(name)"
            let full = "\(root)/\(path)"
            let type = (try? FileManager.default.attributesOfItem(atPath: full))?[.type] as? FileAttributeType
            if type == .typeDirectory {
                if name != "node_modules" {
                    try walk(root: root, relative: path, into: &files)
                }
                continue
            }
            guard name.hasSuffix(".js") else { continue }
            // A regular file, or a link that leads to one.
            var isDirectory: ObjCBool = false
            guard type == .typeRegular
                || (FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory) && !isDirectory.boolValue)
            else { continue }
            guard let data = FileManager.default.contents(atPath: full) else {
                throw ClientFailure(message: "cannot read \(full)")
            }
            guard let text = String(data: data, encoding: .utf8) else {
                throw ClientFailure(message: "\(full) is not UTF-8 text")
            }
            files[path] = text
        }
    }
}
