/// A JavaScript file read just far enough to find what it uses: comments are blanked out (so a
/// commented-out `require` is not one), and, for names, string contents too. Lines keep their
/// numbers, so what is found can be reported as `file:line`.
///
/// Not a parser: a regular expression literal that holds a quote can confuse it, which costs at
/// worst a missed or extra finding in a report, never a wrong deploy.
struct JavaScriptSource {
    /// The source with comments replaced by spaces.
    let code: [UInt8]
    /// The source with comments and the contents of string literals replaced by spaces.
    let names: [UInt8]

    init(_ source: String) {
        var code = Array(source.utf8)
        var names = code
        var index = 0
        let count = code.count
        func blank(_ range: Range<Int>, inCode: Bool) {
            for i in range where code[i] != UInt8(ascii: "\n") {
                if inCode { code[i] = UInt8(ascii: " ") }
                names[i] = UInt8(ascii: " ")
            }
        }
        while index < count {
            let byte = code[index]
            let next = index + 1 < count ? code[index + 1] : 0
            if byte == UInt8(ascii: "/"), next == UInt8(ascii: "/") {
                var end = index
                while end < count, code[end] != UInt8(ascii: "\n") { end += 1 }
                blank(index..<end, inCode: true)
                index = end
            } else if byte == UInt8(ascii: "/"), next == UInt8(ascii: "*") {
                var end = index + 2
                while end + 1 < count, !(code[end] == UInt8(ascii: "*") && code[end + 1] == UInt8(ascii: "/")) { end += 1 }
                end = min(count, end + 2)
                blank(index..<end, inCode: true)
                index = end
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "`") {
                var end = index + 1
                while end < count, code[end] != byte {
                    if code[end] == UInt8(ascii: "\\") { end += 1 }
                    // A plain string ends at the line's end even unclosed; a template string doesn't.
                    if byte != UInt8(ascii: "`"), end < count, code[end] == UInt8(ascii: "\n") { break }
                    end += 1
                }
                blank((index + 1)..<min(end, count), inCode: false)
                index = end + 1
            } else {
                index += 1
            }
        }
        self.code = code
        self.names = names
    }

    /// A `require('name')` call: the name and the line it is on.
    struct Use: Hashable {
        var name: String
        var line: Int
    }

    /// Every `require` of a string literal.
    func requires() -> [Use] {
        let text = String(decoding: code, as: UTF8.self)
        return text.matches(of: /\brequire\s*\(\s*['"]([^'"\n]+)['"]\s*\)/).compactMap { match in
            // Inside a string literal (blanked in `names`) it is text, not a call.
            let offset = text.utf8.distance(from: text.utf8.startIndex, to: match.range.lowerBound)
            guard names[offset] == UInt8(ascii: "r") else { return nil }
            return Use(name: String(match.output.1), line: line(of: match.range.lowerBound, in: text))
        }
    }

    /// Every dotted chain of names that starts with one of `roots` (`AV.Cloud.define`,
    /// `process.exit`), outside comments and strings.
    func chains(from roots: Set<String>) -> [Use] {
        let text = String(decoding: names, as: UTF8.self)
        // What comes before a root must not continue a name or a chain (`x.AV` is not the SDK).
        return text.matches(of: /(?:^|[^\w$.])([A-Za-z_$][\w$]*)((?:\s*\.\s*[A-Za-z_$][\w$]*)*)/).compactMap { match in
            let root = String(match.output.1)
            guard roots.contains(root) else { return nil }
            let members = match.output.2.split(separator: ".").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            return Use(name: ([root] + members).joined(separator: "."), line: line(of: match.output.1.startIndex, in: text))
        }
    }

    /// The names of variables bound to the SDK: `const AV = require('leanengine')`.
    func sdkAliases() -> Set<String> {
        let text = String(decoding: code, as: UTF8.self)
        let found = text.matches(
            of: /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\s*\(\s*['"](leanengine|leancloud-storage|avoscloud-sdk)['"]\s*\)/)
        return Set(found.map { String($0.output.1) })
    }

    private func line(of position: String.Index, in text: String) -> Int {
        text.utf8[..<position].reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

extension Set where Element == Character {
    fileprivate static let whitespacesAndNewlines: Set<Character> = [" ", "\t", "\n", "\r"]
}
