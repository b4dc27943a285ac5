import Foundation
import JSON
import TestSupport
import Testing

@testable import DataAPI

/// Full-text search on PostgreSQL as that engine alone does it: literals PostgreSQL parses as
/// written whatever the tokens hold, the index current on every write path, and hosts sharing
/// one database never disagreeing on whether a class is searched (the engine-generic behaviour is
/// in `SearchEngineTests`).
@Suite(.enabled(if: TestDatabase.server != nil, "needs FUNCTIONHOST_TEST_DATABASE_URL"))
struct PostgresSearchTests {
    /// Tokens no analyzer makes, but a `SearchMatch` may carry: every one is a lexeme of its
    /// own in the vector, and a query for it finds exactly it.
    static let hostile = ["it's", "''", "a\\b", "\\", "x:y", "&|!()", "<->", "b:*", "'; DROP TABLE fh_search; --", "可'乐"]

    @Test func hostileLexemesAreParsedAsWritten() async throws {
        try await StorageEngineTests.withPostgres { storage in
            let lexemes = Self.hostile.map { PostgresSearchText.lexeme(field: "f", token: $0) }
            let vector = lexemes.enumerated().map { "\(PostgresSearchText.quoted($1)):\($0 + 1)" }.joined(separator: " ")
            let stored = try await storage.rows(SQL("SELECT unnest(tsvector_to_array(?::tsvector))", [vector]))
            #expect(Set(stored.map { $0[0] }) == Set(lexemes))
            for (index, token) in Self.hostile.enumerated() {
                let single = try #require(PostgresSearchText.query(SearchMatch(field: "f", tokens: [token]), indexed: []))
                #expect(try await Self.matches(storage, vector, single), "\(token)")
                // Each token's phrase with the next one holds; the reverse order doesn't.
                guard index + 1 < Self.hostile.count else { continue }
                let pair = [token, Self.hostile[index + 1]]
                let forward = try #require(PostgresSearchText.query(SearchMatch(field: "f", tokens: pair), indexed: []))
                let backward = try #require(
                    PostgresSearchText.query(SearchMatch(field: "f", tokens: pair.reversed()), indexed: []))
                #expect(try await Self.matches(storage, vector, forward), "\(pair)")
                #expect(try await !Self.matches(storage, vector, backward), "\(pair)")
            }
            let unknown = try #require(PostgresSearchText.query(SearchMatch(field: "f", tokens: ["it"]), indexed: []))
            #expect(try await !Self.matches(storage, vector, unknown))
        }
    }

    /// Text holding the characters tsquery syntax uses is indexed and found by its words, and a
    /// query made of them finds what its words find.
    @Test func punctuationInTextAndQueriesIsOnlyText() async throws {
        try await StorageEngineTests.withPostgres { storage in
            try await storage.setSearch("Doc", to: SearchSettings(className: "Doc", fields: ["title"]))
            let hostile = try await storage.create(
                "Doc", changes: ObjectChanges(fields: ["title": .set("it's a\\b x:y (a&b)|!c <-> d:* '; DROP TABLE fh_search; --")]))
            _ = try await storage.create("Doc", changes: ObjectChanges(fields: ["title": .set("plain words")]))
            for text in ["x:y", "(a&b)", "it's", "drop table", "d:*", "'; DROP --"] {
                let match = try #require(SearchAnalyzer.match(text))
                #expect(try await Self.ids(storage, "Doc", .text(match)) == [hostile.objectId], "\(text)")
            }
            #expect(SearchAnalyzer.match("&|!()") == nil)
            #expect(try await storage.searchSettings() == [SearchSettings(className: "Doc", fields: ["title"])])
        }
    }

    /// Create, update, delete, delete(ids:) and an import keep the index current, each in its
    /// own transaction; an update of other fields leaves the row as it was.
    @Test func everyWritePathKeepsTheIndex() async throws {
        try await StorageEngineTests.withPostgres { storage in
            let old = try await storage.create("Doc", changes: ObjectChanges(fields: ["title": .set("before search")]))
            try await storage.setSearch("Doc", to: SearchSettings(className: "Doc", fields: ["title", "body"]))
            #expect(try await Self.ids(storage, "Doc", "before") == [old.objectId])
            let a = try await storage.create("Doc", changes: ObjectChanges(fields: ["title": .set("苹果手机"), "n": .set(1)]))
            let b = try await storage.create("Doc", changes: ObjectChanges(fields: ["body": .set("apple phone")]))
            #expect(try await Self.ids(storage, "Doc", "手机") == [a.objectId])
            _ = try await storage.update("Doc", id: a.objectId, changes: ObjectChanges(fields: ["title": .set("香蕉")]), condition: nil)
            #expect(try await Self.ids(storage, "Doc", "手机") == [])
            #expect(try await Self.ids(storage, "Doc", "香蕉") == [a.objectId])
            _ = try await storage.update("Doc", id: a.objectId, changes: ObjectChanges(fields: ["n": .increment(1)]), condition: nil)
            #expect(try await Self.ids(storage, "Doc", "香蕉") == [a.objectId])
            try await storage.delete("Doc", id: b.objectId, condition: nil, check: nil)
            #expect(try await Self.ids(storage, "Doc", "apple") == [])
            let deleted = try await storage.delete("Doc", ids: [a.objectId, "missing"], condition: nil)
            #expect(deleted == [a.objectId])
            #expect(try await Self.ids(storage, "Doc", "香蕉") == [])
            let imported = StoredObject(
                className: "Doc", objectId: "imported1", createdAt: "2024-01-01T00:00:00.000Z",
                updatedAt: "2024-01-01T00:00:00.000Z", fields: ["body": "imported text"])
            var again = imported
            again.fields["body"] = "second copy"
            let written = try await storage.insertExported("Doc", objects: [imported, again], fieldTypes: [:], relations: [])
            #expect(written == 1)
            #expect(try await Self.ids(storage, "Doc", "imported") == ["imported1"])
            #expect(try await Self.ids(storage, "Doc", "copy") == [])
            try await Self.expectIndexAgrees(storage, "Doc")
        }
    }

    /// Relevance is `ts_rank`, best first, then objectId; `.keys` orders by fields with `_score`
    /// as the rank where it stands, objectId last; `hits` counts past the window.
    @Test func ordersByRankOrByKeysThenObjectId() async throws {
        try await StorageEngineTests.withPostgres { storage in
            try await storage.setSearch("Doc", to: SearchSettings(className: "Doc", fields: ["title"]))
            var ids: [String: String] = [:]
            for (name, title, n) in [("b", "apple banana", 1), ("a", "apple apple apple", 1), ("c", "apple pie", 2), ("d", "pear", 0)] {
                var changes = ObjectChanges(fields: ["title": .set(.string(title)), "n": .set(.int(Int64(n)))])
                changes.objectId = "id_\(name)"
                ids[name] = try await storage.create("Doc", changes: changes).objectId
            }
            func search(_ order: SearchOrder, window: Int = 10) async throws -> SearchMatches {
                let match = try #require(SearchAnalyzer.match("apple"))
                return try await storage.search(
                    SearchPlan(className: "Doc", expression: .text(match), restriction: nil, order: order, window: window))
            }
            let best = try await search(.relevance)
            #expect(best.ids == ["id_a", "id_b", "id_c"])
            #expect(try await search(.keys([SortKey(key: "_score", descending: true)])).ids == best.ids)
            #expect(try await search(.keys([SortKey(key: "_score", descending: false)])).ids == ["id_b", "id_c", "id_a"])
            #expect(try await search(.keys([SortKey(key: "n", descending: false)])).ids == ["id_a", "id_b", "id_c"])
            #expect(
                try await search(.keys([SortKey(key: "n", descending: false), SortKey(key: "_score", descending: false)])).ids
                    == ["id_b", "id_a", "id_c"])
            let window = try await search(.keys([SortKey(key: "n", descending: true)]), window: 2)
            #expect(window.ids == ["id_c", "id_a"])
            #expect(window.hits == 3)
            #expect(try await search(.relevance, window: 0) == SearchMatches(ids: [], hits: 3))
            let restricted = try await storage.search(
                SearchPlan(
                    className: "Doc", expression: .everything, restriction: .compare(key: "n", .greaterOrEqual, .int(1)),
                    order: .relevance, window: 10))
            #expect(restricted == SearchMatches(ids: ["id_a", "id_b", "id_c"], hits: 3))
        }
    }

    /// Turning search off drops the index in the same transaction as the settings; a search of
    /// the class is then 101, and its writes go back to one statement. At most
    /// `SearchSettings.maxClasses` classes are searched.
    @Test func turningSearchOffAndTheCapOnClasses() async throws {
        try await StorageEngineTests.withPostgres { storage in
            for index in 0..<SearchSettings.maxClasses {
                try await storage.setSearch("C\(index)", to: SearchSettings(className: "C\(index)", fields: ["t"]))
            }
            await #expect(throws: PostgresStorage.tooManySearchedClasses) {
                try await storage.setSearch("Extra", to: SearchSettings(className: "Extra", fields: ["t"]))
            }
            // Changing a searched class's fields is not one more class.
            try await storage.setSearch("C0", to: SearchSettings(className: "C0", fields: ["t", "u"]))
            try await storage.setSearch("C0", to: nil)
            await #expect(throws: PostgresStorage.searchIsOff) { _ = try await Self.ids(storage, "C0", "x") }
            let table = try #require(try await storage.entry("C0")).table
            let tables = try await storage.rows(
                SQL("SELECT (to_regclass(?) IS NULL)::text", [PostgresSchema.searchTable(table)]))
            #expect(tables.first?[0] == "true")
            _ = try await storage.create("C0", changes: ObjectChanges(fields: ["t": .set("x")]))
            #expect(storage.searchMayBeOn("C0") == false)
            try await storage.setSearch("Extra", to: SearchSettings(className: "Extra", fields: ["t"]))
            #expect(try await storage.searchSettings().count == SearchSettings.maxClasses)
        }
    }

    /// Two hosts on one database: right after one turns search on, the other's writes (whose
    /// catalog knew the class, and whose hint said search was off) are indexed.
    @Test func anotherHostsNextWriteIsIndexed() async throws {
        try await Self.withTwoHosts { first, second, _ in
            let early = try await second.create("Doc", changes: ObjectChanges(fields: ["title": .set("early")]))
            try await first.setSearch("Doc", to: SearchSettings(className: "Doc", fields: ["title"]))
            let created = try await second.create("Doc", changes: ObjectChanges(fields: ["title": .set("late arrival")]))
            _ = try await second.update("Doc", id: early.objectId, changes: ObjectChanges(fields: ["title": .set("changed")]), condition: nil)
            #expect(try await Self.ids(first, "Doc", "arrival") == [created.objectId])
            #expect(try await Self.ids(first, "Doc", "changed") == [early.objectId])
            #expect(try await Self.ids(first, "Doc", "early") == [])
            try await first.setSearch("Doc", to: nil)
            _ = try await second.create("Doc", changes: ObjectChanges(fields: ["title": .set("after off")]))
            try await first.setSearch("Doc", to: SearchSettings(className: "Doc", fields: ["title"]))
            #expect(try await Self.ids(second, "Doc", "off").count == 1)
            try await Self.expectIndexAgrees(first, "Doc")
        }
    }

    /// The race itself, made to happen: host 2's write arrives while host 1's `setSearch` holds
    /// the class's lock, mid-way (it waits on a settings row this test holds). The write waits,
    /// then is indexed with the new settings: its one-statement create reads the settings after
    /// the lock, and so does the update's transaction.
    @Test(arguments: ["create", "update"])
    func aWriteWaitingOnSetSearchIsIndexed(kind: String) async throws {
        try await Self.withTwoHosts { first, second, location in
            let existing = try await second.create("Doc", changes: ObjectChanges(fields: ["title": .set("old words")]))
            let blocker = try await PostgresStorage(location: location)
            let (turnOn, write) = try await blocker.transaction { connection -> (Task<Void, any Error>, Task<String, any Error>) in
                // Holds the settings row setSearch will write (uncommitted), so setSearch stops
                // right after taking the class's lock.
                try await connection.run(SQL("INSERT INTO fh_search (class, fields) VALUES ('Doc', '[]')"))
                let pid = try await connection.rows(SQL("SELECT pg_backend_pid()::text"))[0][0]
                let turnOn = Task { try await first.setSearch("Doc", to: SearchSettings(className: "Doc", fields: ["title"])) }
                let setter = try await Self.waitForBlocked(by: pid, observer: blocker)
                let write = Task {
                    if kind == "create" {
                        return try await second.create("Doc", changes: ObjectChanges(fields: ["title": .set("new words")])).objectId
                    }
                    return try await second.update(
                        "Doc", id: existing.objectId, changes: ObjectChanges(fields: ["title": .set("new words")]), condition: nil
                    ).objectId
                }
                _ = try await Self.waitForBlocked(by: setter, observer: blocker)
                // Commits nothing: setSearch's own insert of the row proceeds once this one is gone.
                try await connection.run(SQL("DELETE FROM fh_search WHERE class = 'Doc'"))
                return (turnOn, write)
            }
            await blocker.close()
            try await turnOn.value
            let wrote = try await write.value
            #expect(try await Self.ids(first, "Doc", "new") == [wrote])
            try await Self.expectIndexAgrees(first, "Doc")
        }
    }

    /// Writes from two hosts while one turns search on, changes its fields and off again: after
    /// each change, every object's row is exactly the vector of its fields.
    @Test func concurrentSetSearchAndWritesAgree() async throws {
        try await Self.withTwoHosts { first, second, _ in
            let seed = try await first.create("Doc", changes: ObjectChanges(fields: ["title": .set("seed")]))
            let settings: [[String]?] = [["title"], ["title", "body"], nil, ["body"], ["title"]]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    let storage = writer % 2 == 0 ? first : second
                    group.addTask {
                        for step in 0..<25 {
                            let text = "w\(writer) s\(step) 文本\(step % 5)"
                            let object = try await storage.create(
                                "Doc", changes: ObjectChanges(fields: ["title": .set(.string(text)), "body": .set(.string(text))]))
                            if step % 3 == 0 {
                                _ = try await storage.update(
                                    "Doc", id: object.objectId, changes: ObjectChanges(fields: ["body": .set(.string("changed \(step)"))]),
                                    condition: nil)
                            }
                            if step % 4 == 0 { try await storage.delete("Doc", id: object.objectId, condition: nil, check: nil) }
                            if step == 10 {
                                _ = try await storage.update(
                                    "Doc", id: seed.objectId, changes: ObjectChanges(fields: ["title": .set(.string("seed \(writer)"))]),
                                    condition: nil)
                            }
                        }
                    }
                }
                group.addTask {
                    for fields in settings {
                        try await first.setSearch("Doc", to: fields.map { SearchSettings(className: "Doc", fields: $0) })
                    }
                }
                try await group.waitForAll()
            }
            try await Self.expectIndexAgrees(second, "Doc")
            #expect(try await Self.ids(second, "Doc", "w3").count == 18)
        }
    }

    // MARK: - Helpers

    /// Whether `vector` matches `query`, both parsed by PostgreSQL.
    static func matches(_ storage: PostgresStorage, _ vector: String, _ query: String) async throws -> Bool {
        try await storage.rows(SQL("SELECT (?::tsvector @@ ?::tsquery)::text", [vector, query]))[0][0] == "true"
    }

    /// The ids matching a text, in relevance order.
    static func ids(_ storage: PostgresStorage, _ className: String, _ text: String) async throws -> [String] {
        try await ids(storage, className, .text(try #require(SearchAnalyzer.match(text))))
    }

    static func ids(_ storage: PostgresStorage, _ className: String, _ expression: SearchExpression) async throws -> [String] {
        let plan = SearchPlan(className: className, expression: expression, restriction: nil, order: .relevance, window: 1000)
        let matches = try await storage.search(plan)
        #expect(matches.hits == matches.ids.count)
        return matches.ids
    }

    /// Every object has its search row, no row outlives its object, and each row is the vector
    /// of the object's indexed fields as they are now.
    static func expectIndexAgrees(_ storage: PostgresStorage, _ className: String) async throws {
        let settings = try await storage.searchSettings().first { $0.className == className }
        let indexed = try #require(settings).fields
        let table = try #require(try await storage.entry(className)).table
        let search = PostgresSchema.searchTable(table)
        let orphans = try await storage.rows(
            SQL("SELECT COUNT(*)::text FROM \"\(search)\" WHERE object_id NOT IN (SELECT id FROM \"\(table)\")"))
        #expect(orphans[0][0] == "0")
        let objects = try await storage.scan(className, predicate: nil, after: nil, limit: 100_000)
        let rows = try await storage.rows(SQL("SELECT object_id, tsv::text FROM \"\(search)\""))
        let vectors = Dictionary(rows.map { ($0[0], $0[1]) }, uniquingKeysWith: { first, _ in first })
        #expect(vectors.count == objects.count)
        for object in objects {
            let literal = PostgresSearchText.vector(of: object.fields, indexed: indexed)
            let expected = try await storage.rows(SQL("SELECT (?::tsvector)::text", [literal]))[0][0]
            #expect(vectors[object.objectId] == expected, "\(object.objectId)")
        }
    }

    /// Two engines (two hosts) on a fresh schema of one database.
    static func withTwoHosts(
        _ body: (PostgresStorage, PostgresStorage, PostgresLocation) async throws -> Void
    ) async throws {
        let location = try #require(TestDatabase.server)
        let schema = "d_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let first = try await PostgresStorage(location: location.inSchema(schema))
        let second = try await PostgresStorage(location: location.inSchema(schema))
        do {
            try await body(first, second, location.inSchema(schema))
        } catch {
            await first.close()
            await second.close()
            throw error
        }
        await first.close()
        await second.close()
    }

    /// The backend of the statement that waits on a lock `pid` holds, once there is one (the
    /// event itself, polled; fails after 30 s).
    static func waitForBlocked(by pid: String, observer: PostgresStorage) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let blocked = try await observer.rows(
                SQL("SELECT pid::text FROM pg_stat_activity WHERE ?::int = ANY(pg_blocking_pids(pid))", [pid]))
            if let first = blocked.first { return first[0] }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("nothing waited on backend \(pid)")
        throw CancellationError()
    }
}
