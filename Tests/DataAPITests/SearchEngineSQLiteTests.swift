import Foundation
import GRDB
import JSON
import Synchronization
import TestSupport
import Testing

@testable import DataAPI

/// What is particular to search on SQLite: the check of an index against its rows, a second
/// engine (another process) on the same file, the statement budget.
@Suite struct SearchEngineSQLiteTests {
    static func path() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("Search-\(UUID().uuidString).sqlite").path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// The check the crash test relies on sees a missing, a stale and a left-over index row.
    @Test func disagreementCheckSeesATamperedIndex() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let storage = try SQLiteStorage(path: path)
        let ids = try await SearchEngineTests.filled(storage)
        #expect(try await storage.searchIndexDisagreements("Article") == ([], 0))
        let table = try #require(storage.catalog.withLock { $0["Article"]?.table })
        try await storage.pool.write { db in
            let fts = "\"\(table)_search\""
            let rowid = { (id: String) in try Int64.fetchOne(db, sql: "SELECT rowid FROM \"\(table)\" WHERE id = ?", arguments: [id])! }
            try db.execute(sql: "DELETE FROM \(fts) WHERE rowid = ?", arguments: [try rowid(ids["coke"]!)])
            try db.execute(sql: "UPDATE \(fts) SET c0 = 'stale' WHERE rowid = ?", arguments: [try rowid(ids["fox"]!)])
            try db.execute(sql: "INSERT INTO \(fts) (rowid, c0, c1, u0, u1) VALUES (999999, 'orphan', '', '', '')")
        }
        let found = try await storage.searchIndexDisagreements("Article")
        #expect(Set(found.objects) == [ids["coke"]!, ids["fox"]!])
        #expect(found.orphans == 1)
    }

    /// Search turned on by another engine on the file (another process, `functionhost
    /// import` beside a server) is seen by this engine's next write, without reopening.
    @Test func writesSeeSearchTurnedOnElsewhere() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let writer = try SQLiteStorage(path: path)
        let other = try SQLiteStorage(path: path)
        _ = try await writer.create("Note", changes: ObjectChanges(fields: ["text": .set("before 之前")]))
        try await other.setSearch("Note", to: SearchSettings(className: "Note", fields: ["text"]))
        let created = try await writer.create("Note", changes: ObjectChanges(fields: ["text": .set("after 之后")]))
        let exported = StoredObject(
            className: "Note", objectId: "exported0001", createdAt: "2024-01-01T00:00:00.000Z",
            updatedAt: "2024-01-01T00:00:00.000Z", fields: ["text": "after imported"])
        #expect(try await writer.insertExported("Note", objects: [exported], fieldTypes: [:], relations: []) == 1)
        let matches = try await other.search(
            SearchPlan(className: "Note", expression: .text(SearchAnalyzer.match("after")!), restriction: nil, order: .relevance, window: 10))
        #expect(Set(matches.ids) == [created.objectId, "exported0001"])
        try await other.setSearch("Note", to: nil)
        // Off elsewhere: this engine's writes no longer look for the dropped table.
        _ = try await writer.create("Note", changes: ObjectChanges(fields: ["text": .set("later")]))
        #expect(try await writer.searchIndexDisagreements("Note") == ([], 0))
    }

    /// A search is held to the engine's statement budget, as a find is (124).
    @Test func searchRunsWithinTheStatementBudget() async throws {
        let path = Self.path()
        defer { Self.remove(path) }
        let storage = try SQLiteStorage(path: path)
        let objects = (0..<3000).map { index in
            StoredObject(
                className: "Big", objectId: String(format: "big%09d", index), createdAt: "2024-01-01T00:00:00.000Z",
                updatedAt: "2024-01-01T00:00:00.000Z", fields: ["text": .string("word \(index) 词语")])
        }
        #expect(try await storage.insertExported("Big", objects: objects, fieldTypes: ["text": .string], relations: []) == 3000)
        try await storage.setSearch("Big", to: SearchSettings(className: "Big", fields: ["text"]))
        let tight = try SQLiteStorage(path: path, budget: StatementBudget(sqliteInstructions: 5_000))
        let plan = SearchPlan(
            className: "Big", expression: .or([.text(SearchAnalyzer.match("word")!), .not(.text(SearchAnalyzer.match("词语")!))]),
            restriction: nil, order: .keys([SortKey(key: "text", descending: true)]), window: 1000)
        await #expect(throws: StatementBudget.exceeded) { try await tight.search(plan) }
        #expect(try await storage.search(plan).hits == 3000)
    }
}
