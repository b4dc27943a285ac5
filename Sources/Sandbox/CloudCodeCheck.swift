import JSON

/// What a LeanEngine project uses that this sandbox does not have, file by file and line by
/// line: npm packages and Node's built-in modules, `process` beyond `process.env`, Node globals,
/// and `AV` APIs the host's SDK does not implement, so a team knows the work before it moves.
///
/// The `AV` APIs and globals are looked up in a real sandbox with the SDK loaded, not in a list
/// kept apart from it: what is reported missing is missing.
public enum CloudCodeCheck {
    /// One thing the code uses that won't work here.
    public struct Finding: Sendable, Hashable, CustomStringConvertible {
        /// The file, relative to the project.
        public var file: String
        /// The line, from 1.
        public var line: Int
        /// What is used: `require('express')`, `AV.Cloud.onIMMessageReceived`, `process.exit`.
        public var usage: String
        /// Why it won't work, and what to do instead.
        public var reason: String

        public var description: String { "\(file):\(line): \(usage): \(reason)" }
    }

    /// Node's built-in modules: no filesystem, processes or sockets in the sandbox.
    static let nodeModules: Set<String> = [
        "assert", "async_hooks", "buffer", "child_process", "cluster", "console", "constants", "crypto", "dgram",
        "dns", "domain", "events", "fs", "fs/promises", "http", "http2", "https", "inspector", "module", "net",
        "os", "path", "perf_hooks", "process", "punycode", "querystring", "readline", "repl", "stream",
        "string_decoder", "sys", "timers", "tls", "tty", "url", "util", "v8", "vm", "worker_threads", "zlib",
    ]

    /// Globals Node has that cloud code may use; each is looked up in the sandbox.
    static let nodeGlobals: [String] = [
        "Buffer", "TextEncoder", "TextDecoder", "URL", "URLSearchParams", "atob", "btoa", "structuredClone",
        "queueMicrotask", "setImmediate", "clearImmediate", "fetch", "global", "globalThis",
    ]

    /// The SDK's module names.
    static let sdkModules: Set<String> = ["leanengine", "leancloud-storage", "avoscloud-sdk"]

    /// Checks `files` (path → source); `packageJSON` is the project's `package.json`, if any.
    public static func findings(files: [String: String], packageJSON: String? = nil) async throws -> [Finding] {
        let sources = files.mapValues(JavaScriptSource.init)
        var findings: [Finding] = []
        var chains: [(file: String, use: JavaScriptSource.Use)] = []
        var globals: [(file: String, use: JavaScriptSource.Use)] = []
        for (file, source) in sources {
            for use in source.requires() {
                if let finding = check(require: use, in: file, files: files) { findings.append(finding) }
            }
            for use in source.chains(from: Set(["AV"]).union(source.sdkAliases())) {
                chains.append((file, use))
            }
            for use in source.chains(from: ["process"]) {
                let member = use.name.split(separator: ".").dropFirst().first.map(String.init)
                if let member, member != "env" {
                    findings.append(
                        Finding(
                            file: file, line: use.line, usage: "process.\(member)",
                            reason: "the sandbox's process has only env (the environment's variables)"))
                }
            }
            for use in source.chains(from: Set(nodeGlobals)) { globals.append((file, use)) }
        }
        findings += try await checkInSandbox(chains: chains, globals: globals)
        if let packageJSON { findings += dependencies(in: packageJSON) }
        return findings.sorted { ($0.file, $0.line, $0.usage) < ($1.file, $1.line, $1.usage) }
    }

    private static func check(require use: JavaScriptSource.Use, in file: String, files: [String: String]) -> Finding? {
        let name = use.name
        if sdkModules.contains(name) { return nil }
        let usage = "require('\(name)')"
        if name.hasPrefix("./") || name.hasPrefix("../") {
            guard CloudCodeFiles.resolve(name, from: file, in: files) == nil else { return nil }
            return Finding(
                file: file, line: use.line, usage: usage,
                reason: "no such .js file in the project (only JavaScript files are deployed; JSON is not)")
        }
        let bare = name.hasPrefix("node:") ? String(name.dropFirst(5)) : name
        if nodeModules.contains(bare) {
            var reason = "Node's built-in module is not in the sandbox (no filesystem, processes or sockets)"
            if ["http", "https", "net", "dns", "tls"].contains(bare) {
                reason += "; call HTTP services with fetch or AV.Cloud.httpRequest"
            }
            return Finding(file: file, line: use.line, usage: usage, reason: reason)
        }
        let package = name.split(separator: "/").prefix(name.hasPrefix("@") ? 2 : 1).joined(separator: "/")
        return Finding(
            file: file, line: use.line, usage: "require('\(package)')",
            reason: "npm packages are not installed: copy a small pure-JavaScript module into the project and require it by relative path, or do the work in a Swift function")
    }

    /// Looks every `AV...` chain and Node global up in a sandbox that has the SDK loaded.
    private static func checkInSandbox(
        chains: [(file: String, use: JavaScriptSource.Use)], globals: [(file: String, use: JavaScriptSource.Use)]
    ) async throws -> [Finding] {
        // Aliases (`const Cloud = require('leanengine')`) are the SDK too: ask about `AV.` paths.
        let paths = Set(chains.map { canonical($0.use.name) })
        let names = Set(globals.map { String($0.use.name.split(separator: ".")[0]) })
        let code = try await CloudCode(files: [], workerCount: 1)
        let query = JSONValue.object([
            "paths": .array(paths.sorted().map(JSONValue.string)), "globals": .array(names.sorted().map(JSONValue.string)),
        ])
        let answer = try await code.evaluate("(\(missingScript))(\(query.jsonString))")
        let missing = try answer.map { try JSONValue(parsing: Array($0.utf8)) }
        let missingPaths = Dictionary(
            uniqueKeysWithValues: (missing?["paths"]?.objectValue ?? [:]).compactMap { key, value in
                value.stringValue.map { (key, $0) }
            })
        let missingGlobals = Set(missing?["globals"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        var findings: [Finding] = []
        for (file, use) in chains {
            guard let absent = missingPaths[canonical(use.name)] else { continue }
            // Named as the code names it (`LC.Push`, when `LC` is its name for the SDK).
            let root = use.name.split(separator: ".")[0]
            findings.append(
                Finding(
                    file: file, line: use.line, usage: String(root) + absent.dropFirst(2),
                    reason: "not implemented by the host's AV SDK"))
        }
        for (file, use) in globals {
            let name = String(use.name.split(separator: ".")[0])
            guard missingGlobals.contains(name) else { continue }
            findings.append(Finding(file: file, line: use.line, usage: name, reason: "a Node global the sandbox does not have"))
        }
        return Array(Set(findings))
    }

    /// Answers which of `paths` the SDK lacks (each with the first part that is missing) and
    /// which of `globals` are not defined.
    private static let missingScript = """
        function (query) {
          var paths = {};
          query.paths.forEach(function (path) {
            var parts = path.split('.'), value = AV, seen = 'AV';
            for (var i = 1; i < parts.length && value !== undefined && value !== null; i++) {
              seen += '.' + parts[i];
              value = value[parts[i]];
              if (value === undefined) { paths[path] = seen; return; }
            }
          });
          var globals = query.globals.filter(function (name) { return typeof globalThis[name] === 'undefined'; });
          return { paths: paths, globals: globals };
        }
        """

    /// `AV.x.y` for a chain rooted at any alias of the SDK.
    private static func canonical(_ chain: String) -> String {
        (["AV"] + chain.split(separator: ".").dropFirst().map(String.init)).joined(separator: ".")
    }

    /// The web routes an Express `app.js` defines (`app.get('/path', ...)`, `router.post(...)`):
    /// this host serves cloud functions and hooks, not an app's own web pages.
    public static func webRoutes(in source: String, file: String) -> [Finding] {
        let text = String(decoding: JavaScriptSource(source).code, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var findings: [Finding] = []
        for (index, line) in lines.enumerated() {
            guard let match = line.firstMatch(of: /\b(app|router)\s*\.\s*(get|post|put|delete|patch|all)\s*\(\s*['"]([^'"]+)['"]/)
            else { continue }
            findings.append(
                Finding(
                    file: file, line: index + 1, usage: "\(match.output.2.uppercased()) \(match.output.3)",
                    reason: "an Express web route: not served here; make it a cloud function (POST /1.1/functions/NAME)"))
        }
        return findings
    }

    /// The npm dependencies `package.json` names, other than the SDK's own.
    static func dependencies(in packageJSON: String) -> [Finding] {
        guard let document = try? JSONValue(parsing: Array(packageJSON.utf8)) else {
            return [Finding(file: "package.json", line: 1, usage: "package.json", reason: "not valid JSON")]
        }
        let lines = packageJSON.split(separator: "\n", omittingEmptySubsequences: false)
        var findings: [Finding] = []
        for section in ["dependencies", "optionalDependencies"] {
            for name in (document[section]?.objectValue ?? [:]).keys.sorted() where !sdkModules.contains(name) {
                let line = (lines.firstIndex { $0.contains("\"\(name)\"") } ?? 0) + 1
                findings.append(
                    Finding(
                        file: "package.json", line: line, usage: "dependency \(name)",
                        reason: "npm packages are not installed in the sandbox"))
            }
        }
        return findings
    }
}
