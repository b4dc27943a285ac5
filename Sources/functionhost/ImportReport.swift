import DataAPI
import Foundation
import JSON

/// The summary an import prints: per class what was read, written and already there, relation
/// members, class settings, file bytes, the skipped lines with their reasons, and what was noticed.
enum ImportReport {
    /// How many skipped lines the text lists (`--json` lists all the summary kept).
    static let listedSkips = 20

    /// The summary for a person.
    static func text(_ summary: ImportSummary, elapsed: Duration) -> String {
        var lines: [String] = []
        let seconds = max(elapsed.seconds, 0.001)
        let read = summary.classes.values.reduce(0) { $0 + $1.read }
        lines.append(
            "Imported \(summary.written) new objects of \(read) read, in \(summary.classes.count) classes, "
                + "from \(summary.files) files in \(String(format: "%.1f", seconds)) s "
                + "(\(Int(Double(read) / seconds)) objects/s).")
        for (name, tally) in summary.classes.sorted(by: { $0.key < $1.key }) {
            var line = "  \(name): \(tally.written) new"
            if tally.existing > 0 { line += ", \(tally.existing) already there" }
            lines.append(line)
        }
        if summary.relationMembers > 0 { lines.append("  relation members: \(summary.relationMembers)") }
        if !summary.classesWithSettings.isEmpty {
            let names = summary.classesWithSettings.sorted().joined(separator: ", ")
            lines.append("  class settings (permissions, field flags): \(summary.classesWithSettings.count) classes (\(names))")
        }
        if summary.fileBytesCopied + summary.fileBytesMissing > 0 {
            lines.append(
                "  file bytes: \(summary.fileBytesCopied) served here, \(summary.fileBytesMissing) not found (old url kept)")
        }
        if summary.skippedCount > 0 {
            lines.append("Skipped \(summary.skippedCount) lines:")
            for skip in summary.skipped.prefix(listedSkips) {
                lines.append("  \(skip.file):\(skip.line): \(skip.reason)")
            }
            if summary.skippedCount > listedSkips {
                lines.append("  ... and \(summary.skippedCount - listedSkips) more (--json lists them)")
            }
        } else {
            lines.append("No line was skipped.")
        }
        for note in summary.notes { lines.append("Note: \(note)") }
        return lines.joined(separator: "\n")
    }

    /// The summary as one line of JSON.
    static func json(_ summary: ImportSummary, elapsed: Duration) -> String {
        var classes: [String: JSONValue] = [:]
        for (name, tally) in summary.classes {
            classes[name] = [
                "read": .int(Int64(tally.read)), "written": .int(Int64(tally.written)),
                "existing": .int(Int64(tally.existing)),
            ]
        }
        let skipped: [JSONValue] = summary.skipped.map { skip in
            ["file": .string(skip.file), "line": .int(Int64(skip.line)), "reason": .string(skip.reason)]
        }
        let document: JSONValue = [
            "classes": .object(classes), "written": .int(Int64(summary.written)),
            "existing": .int(Int64(summary.existing)), "relationMembers": .int(Int64(summary.relationMembers)),
            "classSettings": .array(summary.classesWithSettings.sorted().map { .string($0) }),
            "fileBytesCopied": .int(Int64(summary.fileBytesCopied)),
            "fileBytesMissing": .int(Int64(summary.fileBytesMissing)), "files": .int(Int64(summary.files)),
            "skippedCount": .int(Int64(summary.skippedCount)), "skipped": .array(skipped),
            "notes": .array(summary.notes.map { .string($0) }), "seconds": .double(elapsed.seconds),
        ]
        return document.jsonString
    }
}
