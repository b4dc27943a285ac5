import Foundation
import JSON
import TestSupport
import Testing

@testable import DataAPI

/// The PostgreSQL engine's own tests, run in `make test`'s second pass, when
/// `FUNCTIONHOST_TEST_DATABASE_URL` names a server (the end-to-end tests cover the rest of its
/// behaviour, on both engines).
@Suite(.enabled(if: TestDatabase.server != nil, "needs FUNCTIONHOST_TEST_DATABASE_URL"))
struct StorageEngineTests {
    /// A PostgreSQL engine on a schema of its own, closed after `body`.
    static func withPostgres(_ body: (PostgresStorage) async throws -> Void) async throws {
        let location = try #require(TestDatabase.server)
        let schema = "d_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let storage = try await PostgresStorage(location: location.inSchema(schema))
        do {
            try await body(storage)
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
    }

    /// PostgreSQL answers generated queries as the in-memory evaluator does. Sorting is checked
    /// on fields of one type (and missing or null): arrays and pointers sort by their JSON text,
    /// which JSONB writes differently from SQLite.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func postgresAgreesWithEvaluator(seed: UInt64) async throws {
        try await Self.withPostgres { storage in
            try await QueryPropertyTests.check(storage, seed: seed, orderKeys: ["n", "s", "b", "d", "o.x", "createdAt"])
        }
    }

    /// Two engines on one database (two hosts) incrementing the same object lose nothing, and
    /// a class and a field first written by both at once are recorded once.
    @Test func twoEnginesOnOneDatabaseIncrementExactly() async throws {
        let location = try #require(TestDatabase.server)
        let schema = "d_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let first = try await PostgresStorage(location: location.inSchema(schema))
        let second = try await PostgresStorage(location: location.inSchema(schema))
        let created = try await first.create("Counter", changes: ObjectChanges(fields: ["n": .set(0)]))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                let storage = index % 2 == 0 ? first : second
                group.addTask {
                    _ = try await storage.update(
                        "Counter", id: created.objectId,
                        changes: ObjectChanges(fields: ["n": .increment(1), "f\(index % 3)": .set(.int(Int64(index)))]),
                        condition: nil)
                }
            }
            try await group.waitForAll()
        }
        let stored = try await second.fetch("Counter", id: created.objectId)
        #expect(stored?.fields["n"] == 40)
        #expect(try await first.fieldTypes(of: "Counter")["f2"] == .number)
        await first.close()
        await second.close()
    }

    /// A NUL character, which JSONB can't hold, is refused with a clear 111, not a 500.
    @Test func aNulCharacterIsRefusedClearly() async throws {
        try await Self.withPostgres { storage in
            await #expect(throws: DataAPIError(.incorrectType, "PostgreSQL can't store this text (a NUL character, \\u0000).")) {
                _ = try await storage.create("Text", changes: ObjectChanges(fields: ["s": .set("a\u{0}b")]))
            }
            let exists = try await storage.classExists("Text")
            #expect(exists == false)
        }
    }

    /// An unreachable server is error 511 at once, not a hang.
    @Test func anUnreachableServerIs511() async throws {
        var location = try #require(TestDatabase.server)
        location.port = 1
        await #expect(throws: DataAPIError(.temporarilyUnavailable, "The database is unavailable; try again.")) {
            _ = try await PostgresStorage(location: location)
        }
    }
}
