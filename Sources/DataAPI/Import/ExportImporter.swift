import Foundation
package import JSON

/// Imports a LeanCloud export into a storage engine: a console export archive (`.tar.gz`), a
/// directory of its files, or one JSON Lines file.
///
/// It streams: an archive is decompressed and read member by member, a file line by line, and
/// objects are written in batches, so memory stays flat whatever the export's size. Objects keep
/// their ids, dates and ACLs; an object whose id is already there is left as it is, so running an
/// import twice changes nothing and an interrupted one can simply be run again. No hooks run.
/// Schema files set the classes' permissions and field flags as the export has them.
/// A line that can't be imported is recorded with its file, line and reason, and the rest go on.
package struct ExportImporter {
    /// Where objects go.
    public let storage: any StorageEngine
    /// Applies the class settings of schema files, as the master key would.
    let service: DataService
    /// How export objects become stored ones.
    public var decoder: ExportDecoder
    /// Where the bytes of `_File` objects come from, when they were downloaded beside the export.
    public var fileBytes: ExportFileBytes?
    /// Objects written per transaction.
    public var batchSize = 1000
    /// Told how far the import has come, every few thousand objects.
    public var progress: (@Sendable (ImportProgress) -> Void)?
    /// What the import has done so far.
    public internal(set) var summary = ImportSummary()

    /// The field types of each class met so far: the database's, then what the import added.
    var knownTypes: [String: [String: FieldType]] = [:]
    /// For the progress report: the input's size and the bytes read of it.
    var totalBytes: Int?
    var input: FileBytes?

    /// Creates an importer writing to `storage`.
    public init(storage: any StorageEngine, decoder: ExportDecoder = ExportDecoder()) {
        self.storage = storage
        self.service = DataService(storage: storage)
        self.decoder = decoder
    }

    /// Imports what is at `path`: a `.tar.gz`/`.tgz` archive, a directory (every file under it,
    /// in name order), or a single file.
    public mutating func importPath(_ path: String) async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw DataAPIError(.importFailure, "\(path) does not exist.")
        }
        if isDirectory.boolValue {
            let files = try Self.files(under: path)
            totalBytes = files.reduce(0) { $0 + Self.size(of: $1) }
            var done = 0
            for file in files {
                try await importFile(at: file, named: String(file.dropFirst(path.count + 1)), bytesBefore: done)
                done += Self.size(of: file)
            }
            return
        }
        totalBytes = Self.size(of: path)
        if path.hasSuffix(".tar.gz") || path.hasSuffix(".tgz") {
            let file = try FileBytes(path: path)
            input = file
            let archive = TarArchive(try GzipBytes(file))
            while let entry = try archive.nextEntry() {
                try await importEntry(named: entry.path, from: archive)
            }
            input = nil
        } else {
            try await importFile(at: path, named: String(path.split(separator: "/").last ?? ""), bytesBefore: 0)
        }
    }

    private mutating func importFile(at path: String, named name: String, bytesBefore: Int) async throws {
        let file = try FileBytes(path: path, startingCount: bytesBefore)
        input = file
        defer { input = nil }
        try await importEntry(named: name, from: file)
    }

    /// Imports one file of an export, read from `source`; `name` (its path in the export) says
    /// what it holds.
    public mutating func importEntry(named name: String, from source: any ByteSource) async throws {
        let kind = ExportFile(path: name)
        if case .other(let reason) = kind, reason != "not a class name" {
            summary.notes.append("\(name): not imported (\(reason)).")
            return
        }
        summary.files += 1
        switch kind {
        case .schema(let className):
            try await importSchema(try Self.readAll(source, name: name), className: className, file: name)
            return
        case .objects, .relation, .other:
            break
        }
        // A `.json` file may be one document (an array, or `{"results": [...]}`) rather than lines.
        if name.hasSuffix(".json") {
            let bytes = try Self.readAll(source, name: name)
            if let values = Self.documentObjects(bytes) {
                try await importValues(values, kind: kind, file: name)
                return
            }
            try await importLines(LineReader(MemoryBytes(bytes)), kind: kind, file: name)
            return
        }
        try await importLines(LineReader(source), kind: kind, file: name)
    }

    /// Imports objects of `className` that are already parsed (the pages of a live server's scan).
    public mutating func importObjects(_ values: [JSONValue], className: String, origin: String) async throws {
        try await importValues(values, kind: .objects(className: className), file: origin)
    }

    /// Adds members to a Relation field of `ownerClass`.
    public mutating func importRelation(
        ownerClass: String, field: String, members: [(owner: String, target: String)]
    ) async throws {
        let rows = members.map { RelationMember(field: field, ownerId: $0.owner, targetId: $0.target) }
        _ = try await storage.insertExported(ownerClass, objects: [], fieldTypes: [:], relations: rows)
        if ownerClass == "_Role" { service.roleChanges.bump() }
        summary.relationMembers += rows.count
    }

    /// Adds a note to the summary (what a caller noticed and did not apply).
    public mutating func note(_ text: String) {
        summary.notes.append(text)
    }

    private mutating func importValues(_ values: [JSONValue], kind: ExportFile, file: String) async throws {
        var batch = Batch(kind: kind)
        for (index, value) in values.enumerated() {
            try await add(value, line: index + 1, bytes: value.jsonBytes, to: &batch, file: file)
        }
        try await flush(&batch)
        try await keepClass(of: batch.kind)
    }

    private mutating func importLines(_ lines: LineReader, kind: ExportFile, file: String) async throws {
        var batch = Batch(kind: kind)
        while let line = try lines.next() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            if line.first == UInt8(ascii: "#") {
                // The `#filetype:` header names the class, whatever the file is called.
                if lines.lineNumber == 1, let className = ExportFile.headerClass(line) {
                    batch.kind = .objects(className: className)
                }
                continue
            }
            if case .other = batch.kind {
                summary.skip(file, line: lines.lineNumber, "The file's name is not a class name and it has no #filetype header.")
                continue
            }
            if case .relation = batch.kind, file.hasSuffix(".csv") {
                if let pair = Self.csvPair(line) {
                    try await add(pair, line: lines.lineNumber, bytes: line, to: &batch, file: file)
                }
                continue
            }
            let value: JSONValue
            do {
                // As deep as a stored document may be read back: an export of one still imports.
                value = try JSONValue(parsing: line, maxDepth: JSONValue.maxStoredDepth)
            } catch {
                summary.skip(file, line: lines.lineNumber, "Malformed JSON: \(error.message)")
                continue
            }
            try await add(value, line: lines.lineNumber, bytes: line, to: &batch, file: file)
        }
        try await flush(&batch)
        try await keepClass(of: batch.kind)
    }

    /// A CSV line of a relation file, `owningId,relatedId` (quotes allowed), as the JSON form;
    /// nil for a header line.
    static func csvPair(_ line: ArraySlice<UInt8>) -> JSONValue? {
        let cells = String(decoding: line, as: UTF8.self).split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t\"")) }
        if cells.first == "owningId" { return nil }
        guard cells.count == 2 else { return [:] }
        return ["owningId": .string(cells[0]), "relatedId": .string(cells[1])]
    }

    // MARK: Reading whole files

    /// The largest `.json` document or schema file read whole.
    static let maxDocumentSize = 256 << 20

    static func readAll(_ source: any ByteSource, name: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while let chunk = try source.read() {
            bytes += chunk
            guard bytes.count <= maxDocumentSize else {
                throw DataAPIError(.importFailure, "\(name) is larger than 256 MB: write it as JSON Lines (one object per line).")
            }
        }
        return bytes
    }

    /// The objects of a whole-document `.json` file: an array, or `{"results": [...]}`; nil when
    /// the file is not one document (JSON Lines named `.json`).
    static func documentObjects(_ bytes: [UInt8]) -> [JSONValue]? {
        guard let first = bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "[")
            || first == UInt8(ascii: "{"),
            // Its objects as deep as stored ones may be, inside the array and `results` around them.
            let document = try? JSONValue(parsing: bytes, maxDepth: JSONValue.maxStoredDepth + 2)
        else { return nil }
        switch document {
        case .array(let values): return values
        case .object(let members):
            if case .array(let values)? = members["results"], members.count == 1 { return values }
            return nil
        default: return nil
        }
    }

    static func files(under directory: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else {
            throw DataAPIError(.importFailure, "Can't read the directory \(directory).")
        }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            let path = directory + "/" + relative
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") })
            {
                files.append(path)
            }
        }
        return files.sorted()
    }

    static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
}
