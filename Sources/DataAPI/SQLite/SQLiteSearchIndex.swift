internal import GRDB
import JSON

/// The full-text index of one class on SQLite: an FTS5 table `<table>_search` whose rowid is
/// the class row's rowid, with two columns per indexed field: `c<i>` holds the field's
/// positional tokens (`SearchAnalyzer`: words and CJK pairs) and `u<i>` its CJK characters,
/// each separated by a space.
///
/// FTS5's `ascii` tokenizer splits only at ASCII characters that aren't letters or digits, and
/// every analyzer token is made of ASCII letters and digits or of other characters: each token
/// stays exactly one FTS5 token, CJK pairs included, and FTS5 adds no folding of its own
/// (`unicode61` would split at combining marks and fold again). What matches is then decided
/// by the one Swift analyzer, as on PostgreSQL.
struct SQLiteSearchIndex: Sendable, Hashable {
    /// The class table (`o_<id>`).
    var table: String
    /// The indexed fields, in column order.
    var fields: [String]

    /// The FTS5 table.
    var ftsTable: String { "\(table)_search" }

    /// The column of a field's tokens, or of its unigrams.
    static func column(_ index: Int, unigram: Bool) -> String { (unigram ? "u" : "c") + String(index) }

    /// The statement creating the FTS5 table.
    var createStatement: String {
        "CREATE VIRTUAL TABLE \"\(ftsTable)\" USING fts5(\(columnList), tokenize = 'ascii')"
    }

    /// The statement inserting one document: rowid then each column.
    var insertStatement: String {
        let marks = Array(repeating: "?", count: fields.count * 2 + 1).joined(separator: ", ")
        return "INSERT INTO \"\(ftsTable)\" (rowid, \(columnList)) VALUES (\(marks))"
    }

    private var columnList: String {
        (fields.indices.map { Self.column($0, unigram: false) } + fields.indices.map { Self.column($0, unigram: true) })
            .joined(separator: ", ")
    }

    /// The column values of a document: each field's tokens, then each field's unigrams; nil
    /// when it holds no text at all (no FTS row is kept for it).
    func values(of document: [String: JSONValue]) -> [String]? {
        let analyzed = fields.map { document[$0].map(SearchAnalyzer.analyze) ?? AnalyzedText() }
        guard analyzed.contains(where: { !$0.tokens.isEmpty || !$0.unigrams.isEmpty }) else { return nil }
        return analyzed.map { $0.tokens.joined(separator: " ") } + analyzed.map { $0.unigrams.joined(separator: " ") }
    }

    /// Whether two versions of a document index the same text.
    func indexesSame(_ old: [String: JSONValue], _ new: [String: JSONValue]) -> Bool {
        fields.allSatisfy { old[$0] == new[$0] }
    }

    /// Indexes the class row `rowid`, inside the writer's transaction.
    func insert(rowid: Int64, document: [String: JSONValue], _ db: Database) throws {
        guard let values = values(of: document) else { return }
        try db.cachedStatement(sql: insertStatement)
            .execute(arguments: StatementArguments([rowid.databaseValue] + values.map(\.databaseValue)))
    }

    /// Drops the index rows of the class rows whose ids are `ids`, inside the writer's
    /// transaction, before those rows are deleted or rewritten.
    func delete(ids: [String], _ db: Database) throws {
        guard !ids.isEmpty else { return }
        let marks = Array(repeating: "?", count: ids.count).joined(separator: ",")
        try db.execute(
            sql: "DELETE FROM \"\(ftsTable)\" WHERE rowid IN (SELECT rowid FROM \"\(table)\" WHERE id IN (\(marks)))",
            arguments: StatementArguments(ids))
    }

    /// Indexes every row of the class, inside the writer's transaction (`setSearch`).
    func build(_ db: Database) throws {
        let rows = try Row.fetchCursor(db, sql: "SELECT rowid, doc FROM \"\(table)\"")
        while let row = try rows.next() {
            let doc: String = row["doc"]
            guard case .object(let fields) = try JSONValue.parsed(Array(doc.utf8)) else {
                throw DataAPIError(.storageFailure, "A stored document is not an object.")
            }
            try insert(rowid: row["rowid"], document: fields, db)
        }
    }
}
