internal import GRDB
import JSON
import Synchronization

/// Full-text search on SQLite: FTS5 tables kept inside each write's own transaction
/// (`SQLiteSearchIndex`), queried through `SQLiteSearchCompiler`.
extension SQLiteStorage {
    /// How long building a class's index may hold the writer: a master-key action that reads
    /// every row of the class, so a request's budget would refuse a large class (about
    /// 10 000 documents a second are indexed; writes wait meanwhile).
    static let searchBuildTime: Duration = .seconds(600)

    package func searchSettings() async throws -> [SearchSettings] {
        try await read { db in
            try Self.loadSettings(db).sorted { $0.className < $1.className }
        }
    }

    package func setSearch(_ className: String, to settings: SearchSettings?) async throws {
        if let settings, settings.className != className {
            throw DataAPIError(.badParameters, "The settings are for \(settings.className), not \(className).")
        }
        let budget = StatementBudget(time: max(budget.time, Self.searchBuildTime))
        let created = try await write(budget: budget) { db -> ClassEntry? in
            let recorded = try Self.loadSettings(db)
            let others = recorded.filter { $0.className != className }.count
            let current = recorded.first { $0.className == className }
            guard let settings else {
                guard current != nil, let entry = try self.entry(className, db) else { return nil }
                try db.execute(sql: "DELETE FROM search_classes WHERE class = ?", arguments: [className])
                try db.execute(sql: "DROP TABLE IF EXISTS \"\(SQLiteSearchIndex(table: entry.table, fields: []).ftsTable)\"")
                db.afterNextTransaction(onCommit: { _ in self.searchIndexes.withLock { $0[className] = nil } })
                return nil
            }
            try SearchLimits.check(settings, otherClasses: others)
            if current == settings { return nil }
            let existing = try self.entry(className, db)
            let entry = try existing ?? self.createClass(className, db)
            let index = SQLiteSearchIndex(table: entry.table, fields: settings.fields)
            try db.execute(sql: "DROP TABLE IF EXISTS \"\(index.ftsTable)\"")
            try db.execute(sql: index.createStatement)
            try index.build(db)
            let fields = String(decoding: JSONValue.array(settings.fields.map(JSONValue.string)).jsonBytes, as: UTF8.self)
            try db.execute(
                sql: "INSERT OR REPLACE INTO search_classes (class, fields) VALUES (?, ?)", arguments: [className, fields])
            db.afterNextTransaction(onCommit: { _ in self.searchIndexes.withLock { $0[className] = index } })
            return existing == nil ? entry : nil
        }
        if let created { remember(className, [:], table: created.table) }
    }

    package func search(_ plan: SearchPlan) async throws -> SearchMatches {
        try SearchLimits.check(plan.expression)
        return try await read { db in
            var matches = SearchMatches(ids: [], hits: 0)
            // One snapshot: the settings, the count and the ids agree with each other.
            try db.inTransaction(.deferred) {
                matches = try self.search(plan, db)
                return .commit
            }
            return matches
        }
    }

    private func search(_ plan: SearchPlan, _ db: Database) throws -> SearchMatches {
        guard let settings = try Self.loadSettings(db).first(where: { $0.className == plan.className }),
            let entry = try entry(plan.className, db)
        else {
            throw DataAPIError(.objectNotFound, "Search is not on for the class \(plan.className).")
        }
        let index = SQLiteSearchIndex(table: entry.table, fields: settings.fields)
        let conditions = compiler(plan.className, entry, db)
        let compiled = SQLiteSearchCompiler(index: index, conditions: conditions).compile(plan.expression)
        var condition = compiled.condition
        if let restriction = plan.restriction {
            let fragment = conditions.compile(restriction)
            condition = .init(sql: "(\(condition.sql)) AND (\(fragment.sql))", arguments: condition.arguments + fragment.arguments)
        }
        let table = "\"\(entry.table)\""
        var join = SQLiteQueryCompiler.Fragment(sql: "")
        var score: String?
        if let match = compiled.match {
            let fts = "\"\(index.ftsTable)\""
            join = .init(
                sql: "\(compiled.joinsAll ? "JOIN" : "LEFT JOIN") (SELECT rowid AS search_rowid, bm25(\(fts)) AS search_score "
                    + "FROM \(fts) WHERE \(fts) MATCH ?) ON search_rowid = \(table).rowid",
                arguments: [match.databaseValue])
            // bm25 is negative, lower is better; a row the ranking MATCH misses ranks last.
            score = compiled.joinsAll ? "search_score" : "coalesce(search_score, 0)"
        }
        // Counting needs the join only where it filters.
        let countJoin = compiled.joinsAll ? join : .init(sql: "")
        let hits = try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM \(table) \(countJoin.sql) WHERE \(condition.sql)",
            arguments: StatementArguments(countJoin.arguments + condition.arguments)) ?? 0
        guard plan.window > 0, hits > 0 else { return SearchMatches(ids: [], hits: hits) }
        var terms: [String] = []
        switch plan.order {
        case .relevance:
            if let score { terms.append("\(score) ASC") }
        case .keys(let keys):
            for key in keys {
                if key.key == "_score" {
                    // Descending relevance (`-_score`) is the best first: bm25 ascending.
                    if let score { terms.append("\(score) \(key.descending ? "ASC" : "DESC")") }
                } else {
                    terms.append(conditions.orderTerm(key))
                }
            }
        }
        terms.append("\(table).id ASC")
        let ids = try String.fetchAll(
            db,
            sql: "SELECT \(table).id FROM \(table) \(join.sql) WHERE \(condition.sql) ORDER BY \(terms.joined(separator: ", ")) LIMIT ?",
            arguments: StatementArguments(join.arguments + condition.arguments + [plan.window.databaseValue]))
        return SearchMatches(ids: ids, hits: hits)
    }

    /// The index a write of `className` keeps current, if search is on for it.
    func searchIndex(of className: String) -> SQLiteSearchIndex? {
        searchIndexes.withLock { $0[className] }
    }

    /// Re-indexes the row `id` after a write changed its document, when an indexed field changed.
    func reindex(_ className: String, id: String, old: [String: JSONValue], new: [String: JSONValue], _ db: Database) throws {
        guard let index = searchIndex(of: className), !index.indexesSame(old, new) else { return }
        try index.delete(ids: [id], db)
        guard let rowid = try Int64.fetchOne(db, sql: "SELECT rowid FROM \"\(index.table)\" WHERE id = ?", arguments: [id])
        else { return }
        try index.insert(rowid: rowid, document: new, db)
    }

    /// Every class's search settings as recorded.
    static func loadSettings(_ db: Database) throws -> [SearchSettings] {
        try Row.fetchAll(db, sql: "SELECT class, fields FROM search_classes").map { row in
            let className: String = row["class"]
            let text: String = row["fields"]
            let fields = try JSONValue.parsed(Array(text.utf8)).arrayValue?.compactMap(\.stringValue) ?? []
            return SearchSettings(className: className, fields: fields)
        }
    }

    /// The index of each class search is on for, as the database records them.
    static func loadSearchIndexes(_ db: Database) throws -> [String: SQLiteSearchIndex] {
        var indexes: [String: SQLiteSearchIndex] = [:]
        for settings in try loadSettings(db) {
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM classes WHERE name = ?", arguments: [settings.className])
            else { continue }
            indexes[settings.className] = SQLiteSearchIndex(table: "o_\(id)", fields: settings.fields)
        }
        return indexes
    }
}
