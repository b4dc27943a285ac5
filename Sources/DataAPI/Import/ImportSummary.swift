/// What an import did: objects per class, relation members, and every line it skipped, why.
package struct ImportSummary: Sendable, Hashable {
    /// The objects of one class.
    public struct ClassTally: Sendable, Hashable {
        /// Objects read and accepted.
        public var read = 0
        /// Objects written (new).
        public var written = 0
        /// Objects whose id the database already had: left as they were.
        public var existing = 0
    }

    /// A line that was not imported.
    public struct SkippedLine: Sendable, Hashable {
        /// The file (or archive member) it is in.
        public var file: String
        /// Its number, from 1.
        public var line: Int
        /// Why it was skipped.
        public var reason: String
    }

    /// The objects of each class.
    public var classes: [String: ClassTally] = [:]
    /// Relation members read (members already there count too: adding one is idempotent).
    public var relationMembers = 0
    /// `_File` objects whose bytes were found beside the export and are now served here.
    public var fileBytesCopied = 0
    /// `_File` objects whose bytes were not found there (they keep their old url).
    public var fileBytesMissing = 0
    /// The classes whose permissions or field flags the export set (other than the defaults),
    /// now in force here.
    public var classesWithSettings: Set<String> = []
    /// Files read.
    public var files = 0
    /// Skipped lines, the first `maxListedSkips` of them.
    public var skipped: [SkippedLine] = []
    /// How many lines were skipped in all.
    public var skippedCount = 0
    /// What the import noticed and did not apply (default ACLs, indexes, CSV files).
    public var notes: [String] = []

    /// How many skipped lines are listed; the rest are only counted.
    public static let maxListedSkips = 1000

    /// Objects written, over every class.
    public var written: Int { classes.values.reduce(0) { $0 + $1.written } }
    /// Objects already there, over every class.
    public var existing: Int { classes.values.reduce(0) { $0 + $1.existing } }

    mutating func skip(_ file: String, line: Int, _ reason: String) {
        skippedCount += 1
        if skipped.count < Self.maxListedSkips { skipped.append(SkippedLine(file: file, line: line, reason: reason)) }
    }
}

/// How far an import has come, for a progress bar.
package struct ImportProgress: Sendable {
    /// Bytes of the input read so far (compressed bytes for an archive).
    public var bytesRead: Int
    /// The input's size, when it is known.
    public var totalBytes: Int?
    /// Objects read so far.
    public var objects: Int
    /// The file being read.
    public var file: String
}
