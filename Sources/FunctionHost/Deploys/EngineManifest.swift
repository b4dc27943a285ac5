import DataAPI
import Foundation
import HTTPTypes
import JSON

/// How an engine app is installed and run: what LeanCloud read from the app's
/// `leanengine.yaml` (`run`, `install`, `startupTimeout`), or its defaults for the app's kind, or
/// what the deploy says (`--engine-command`).
struct EngineManifest: Sendable, Hashable {
    /// The start command, run by `/bin/sh -c` in the app's folder.
    var run: String
    /// Commands run once in the app's folder on each host before its first start (`npm ci`);
    /// a failing one refuses the deploy.
    var install: [String] = []
    /// How long the app has to answer its metadatas after a start (LeanCloud: 30 s, 15–120).
    var startupTimeout: Duration = .seconds(30)

    /// The file LeanCloud read the settings from.
    static let file = "leanengine.yaml"

    /// The manifest of `bundle`: `command` when the deploy gives one, else `leanengine.yaml`'s
    /// `run`, else LeanCloud's default for the app's kind (`npm start` with a `package.json`,
    /// `python wsgi.py` with a `wsgi.py`).
    init(bundle: EngineBundle, command: String?) throws(HostError) {
        var settings: [String: EngineManifest.Value] = [:]
        if let yaml = bundle.files[Self.file] {
            settings = try Self.read(String(decoding: yaml.bytes, as: UTF8.self))
        }
        let packaged = bundle.files["package.json"] != nil
        let run = command.flatMap { $0.isEmpty ? nil : $0 } ?? settings["run"]?.text
            ?? (packaged ? "npm start" : bundle.files["wsgi.py"] != nil ? "python3 wsgi.py" : nil)
        guard let run else {
            throw EngineBundle.invalid("no start command: give --engine-command, a 'run:' in leanengine.yaml, or a package.json or wsgi.py")
        }
        self.run = run
        if let install = settings["install"] {
            self.install = install.lines
        } else if packaged {
            // LeanCloud installed a Node app's packages before its first start.
            self.install = [bundle.files["package-lock.json"] != nil ? "npm ci --omit=dev" : "npm install --omit=dev"]
        }
        if let timeout = settings["startupTimeout"]?.text {
            guard let seconds = Int(timeout), (15...120).contains(seconds) else {
                throw EngineBundle.invalid("startupTimeout must be 15 to 120 seconds")
            }
            startupTimeout = .seconds(seconds)
        }
        guard self.run.utf8.count <= 4096, self.install.count <= 16, self.install.allSatisfy({ $0.utf8.count <= 4096 }) else {
            throw EngineBundle.invalid("its commands are too long")
        }
    }

    /// A manifest as stored with its version.
    init(run: String, install: [String], startupTimeout: Duration) {
        self.run = run
        self.install = install
        self.startupTimeout = startupTimeout
    }

    /// A value of `leanengine.yaml`: one line, or a list of lines.
    enum Value: Sendable, Equatable {
        case text(String)
        case list([String])

        var text: String? {
            if case .text(let text) = self { return text }
            return nil
        }

        var lines: [String] {
            switch self {
            case .text(let text): return text.isEmpty ? [] : [text]
            case .list(let lines): return lines
            }
        }
    }

    /// Reads the part of YAML `leanengine.yaml` uses: top-level `key: value` lines and `key:`
    /// followed by `- item` lines, comments and quotes. (Not a YAML library: none is in the
    /// host's package set but Yams, whose C parser would be the only one in the host for one
    /// small file.) Keys it doesn't use are ignored, as LeanCloud ignored unknown keys.
    static func read(_ text: String) throws(HostError) -> [String: Value] {
        guard text.utf8.count <= 64 * 1024 else { throw EngineBundle.invalid("leanengine.yaml is past 64 KB") }
        var values: [String: Value] = [:]
        var listKey: String?
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = uncommented(raw)
            guard !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if line.first == " " || line.first == "\t" || trimmed.hasPrefix("- ") || trimmed == "-" {
                // An item of the list the last key opened; other nesting isn't used by these keys.
                guard let key = listKey, trimmed.hasPrefix("-") else { continue }
                let item = unquoted(String(trimmed.dropFirst()).trimmingCharacters(in: .whitespaces))
                if case .list(let items)? = values[key] { values[key] = .list(items + [item]) } else { values[key] = .list([item]) }
                continue
            }
            guard let colon = line.firstIndex(of: ":") else { throw EngineBundle.invalid("leanengine.yaml: '\(line.prefix(60))' is not 'key: value'") }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if value.isEmpty {
                listKey = key
            } else {
                listKey = nil
                values[key] = .text(unquoted(value))
            }
        }
        return values
    }

    /// A line without its comment (a `#` at its start or after a blank, outside quotes).
    private static func uncommented(_ line: Substring) -> String {
        var quote: Character?
        var previous: Character = " "
        var result = ""
        for character in line {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#", previous == " " || previous == "\t" {
                break
            }
            result.append(character)
            previous = character
        }
        return result
    }

    private static func unquoted(_ value: String) -> String {
        guard value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first else { return value }
        return String(value.dropFirst().dropLast())
    }

    /// The manifest as stored with its version.
    var record: JSONValue {
        [
            "run": .string(run), "install": .array(install.map(JSONValue.string)),
            "startupTimeout": .int(Int64(startupTimeout.components.seconds)),
        ]
    }

    /// A stored manifest read back; nil when it isn't one.
    init?(record: JSONValue?) {
        guard let run = record?["run"]?.stringValue else { return nil }
        self.init(
            run: run, install: record?["install"]?.arrayValue?.compactMap(\.stringValue) ?? [],
            startupTimeout: .seconds(record?["startupTimeout"]?.intValue ?? 30))
    }
}
