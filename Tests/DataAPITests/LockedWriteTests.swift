import Foundation
import JSON
import TestSupport
import Testing

@testable import DataAPI

/// `StorageEngine.write(_:lockedBy:)`: several creates and deletes of different classes as one
/// transaction, all or none, and transactions naming one lock one after the other, across two
/// engines on one PostgreSQL database; on SQLite or PostgreSQL (`FUNCTIONHOST_TEST_DATABASE_URL`).
@Suite struct LockedWriteTests {
    /// Two engines on this test's database (two hosts on PostgreSQL; one SQLite engine twice).
    static func withEngines(_ body: ([any StorageEngine]) async throws -> Void) async throws {
        if TestDatabase.server != nil {
            try await PostgresSearchTests.withTwoHosts { first, second, _ in try await body([first, second]) }
            return
        }
        let database = try SQLiteTestDatabase()
        try await body([database.storage, database.storage])
    }

    static func create(_ className: String, _ id: String, _ n: Int) -> LockedWrite {
        var changes = ObjectChanges(fields: ["n": .set(.int(Int64(n)))])
        changes.objectId = id
        return .create(className, changes)
    }

    static func ids(_ storage: any StorageEngine, _ className: String) async throws -> [String] {
        try await storage.find(ObjectQuery(className: className, limit: 100)).map(\.objectId).sorted()
    }

    @Test func theWritesAreOneTransaction() async throws {
        try await Self.withEngines { engines in
            let storage = engines[0]
            let made = try await storage.write([Self.create("Left", "a1", 1), Self.create("Right", "b1", 2)], lockedBy: "pair")
            #expect(made.map { $0.map(\.objectId) } == [["a1"], ["b1"]])
            // A create whose id is taken fails them all: the delete and the create before it are undone.
            await #expect(throws: DataAPIError.self) {
                _ = try await storage.write(
                    [Self.create("Left", "a2", 3), .delete("Right", ["b1"]), Self.create("Left", "a1", 4)], lockedBy: "pair")
            }
            #expect(try await Self.ids(storage, "Left") == ["a1"])
            #expect(try await Self.ids(storage, "Right") == ["b1"])
            // A delete answers what it deleted as it was, skipping ids with no object.
            let deleted = try await storage.write([.delete("Left", ["a1", "missing"]), .delete("Nowhere", ["x"])], lockedBy: "pair")
            #expect(deleted.map { $0.map(\.objectId) } == [["a1"], []])
            #expect(deleted.first?.first?.fields["n"] == 1)
            #expect(try await Self.ids(storage, "Left").isEmpty)
        }
    }

    /// Pairs made and unmade at once through two engines: each pair ends with both objects or
    /// neither.
    @Test func transactionsNamingOneLockKeepAPairWhole() async throws {
        try await Self.withEngines { engines in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<48 {
                    let pair = index % 6
                    let storage = engines[index % 2]
                    group.addTask {
                        let writes: [LockedWrite] =
                            index % 4 < 2
                            ? [Self.create("Left", "l\(pair)", index), Self.create("Right", "r\(pair)", index)]
                            : [.delete("Left", ["l\(pair)"]), .delete("Right", ["r\(pair)"])]
                        do {
                            _ = try await storage.write(writes, lockedBy: "pair-\(pair)")
                        } catch let error as DataAPIError where error.code == .duplicateValue {
                            // The pair was there already: this create changed nothing.
                        }
                    }
                }
                try await group.waitForAll()
            }
            let left = try await Self.ids(engines[1], "Left").map { $0.dropFirst() }
            let right = try await Self.ids(engines[0], "Right").map { $0.dropFirst() }
            #expect(left == right, "every pair is whole or gone")
        }
    }
}
