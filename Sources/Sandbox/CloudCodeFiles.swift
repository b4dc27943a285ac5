/// Which files of a folder are the cloud code.
///
/// A folder of cloud code runs every `*.js` file in it. A LeanEngine Node project is different:
/// `server.js` starts an Express app (`app.js`) that serves `cloud.js`; only `cloud.js` and what
/// it requires by relative path are cloud code, and the rest needs Node and npm. So when a
/// folder has `cloud.js` beside `server.js`, `app.js` or `package.json`, only `cloud.js` and the
/// files it reaches through `require('./...')` are taken, and the project deploys as it is.
public enum CloudCodeFiles {
    /// The files to load out of `files` (path → source, `/`-separated paths relative to the folder).
    public static func selected(_ files: [String: String], markers: Set<String> = []) -> [String: String] {
        guard files["cloud.js"] != nil, isLeanEngineProject(files.keys, markers: markers) else { return files }
        var chosen: [String: String] = [:]
        var pending = ["cloud.js"]
        while let path = pending.popLast() {
            guard chosen[path] == nil, let source = files[path] else { continue }
            chosen[path] = source
            for required in JavaScriptSource(source).requires() {
                if let target = resolve(required.name, from: path, in: files) { pending.append(target) }
            }
        }
        return chosen
    }

    /// Whether a folder's names look like a LeanEngine Node project: `cloud.js` beside the files
    /// that start one (`markers` names the non-JavaScript ones, such as `package.json`).
    static func isLeanEngineProject(_ names: some Sequence<String>, markers: Set<String>) -> Bool {
        let all = Set(names).union(markers)
        return all.contains("cloud.js") && !all.isDisjoint(with: ["server.js", "app.js", "package.json"])
    }

    /// The file a relative `require(name)` in `from` loads, as the sandbox resolves it: the path,
    /// the path with `.js`, or its `index.js`; nil for a package name or a file that isn't there.
    public static func resolve(_ name: String, from: String, in files: [String: String]) -> String? {
        guard name.hasPrefix("./") || name.hasPrefix("../") else { return nil }
        var parts = from.split(separator: "/").dropLast().map(String.init)
        for part in name.split(separator: "/") {
            if part == ".." {
                if parts.isEmpty { return nil }
                parts.removeLast()
            } else if part != "." {
                parts.append(String(part))
            }
        }
        let path = parts.joined(separator: "/")
        return [path, path + ".js", path + "/index.js"].first { files[$0] != nil }
    }
}
