import Foundation
import GRDB
import JSON
import Logging
import PostgresNIO
import Synchronization
import TestSupport
import Testing

@testable import DataAPI

/// The unique indexes of `_User`'s username, email and phone number and `_Role`'s name, on each
/// engine (PostgreSQL when `FUNCTIONHOST_TEST_DATABASE_URL` names a server): the database refuses
/// a taken value with LeanCloud's code by itself, without the service's check; a database made
/// before the indexes, holding duplicates, still opens and says what to clean up.
@Suite struct UniqueIndexTests {
    enum Engine: String, Sendable, CaseIterable {
        case sqlite
        case postgres
    }

    /// The engines these tests run on.
    static let engines: [Engine] = TestDatabase.isPostgres ? [.sqlite, .postgres] : [.sqlite]

    /// Where an engine keeps its data from one opening to the next: a SQLite file, or a
    /// PostgreSQL schema of its own.
    struct Place: Sendable {
        let engine: Engine
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("Unique-\(UUID().uuidString).sqlite").path
        let schema = "u_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")

        func open(logger: Logger = Logger(label: "unique")) async throws -> any StorageEngine {
            switch engine {
            case .sqlite: return try SQLiteStorage(path: path, logger: logger)
            case .postgres: return try await PostgresStorage(location: try #require(TestDatabase.server).inSchema(schema), logger: logger)
            }
        }

        /// Opens the engine, runs `body`, closes it.
        func with<T>(logger: Logger = Logger(label: "unique"), _ body: (any StorageEngine) async throws -> T) async throws -> T {
            let storage = try await open(logger: logger)
            do {
                let result = try await body(storage)
                await (storage as? PostgresStorage)?.close()
                return result
            } catch {
                await (storage as? PostgresStorage)?.close()
                throw error
            }
        }

        /// Drops the unique index of `field` from its class's table: the database as it was
        /// before the indexes existed.
        func dropUniqueIndex(_ field: String, of className: String, in storage: any StorageEngine) async throws {
            let spec = try #require(UniqueFields.fields(of: className).first { $0.name == field })
            if let sqlite = storage as? SQLiteStorage {
                let table = try #require(sqlite.catalog.withLock { $0[className]?.table })
                try await sqlite.pool.write { db in try db.execute(sql: "DROP INDEX \"\(spec.indexName(table: table))\"") }
            } else if let postgres = storage as? PostgresStorage {
                let table = try #require(postgres.catalog.withLock { $0[className]?.table })
                try await postgres.transaction { connection in
                    try await connection.run(SQL("DROP INDEX \"\(spec.indexName(table: table))\""))
                }
            }
        }

        func remove() {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
    }

    /// The names of a class's unique indexes (`unique_<field>`).
    static func uniqueIndexes(of className: String, in storage: any StorageEngine) async throws -> Set<String> {
        let indexes = try await (storage as! any IndexAdministration).indexes(of: className)
        return Set(indexes.map(\.name).filter { $0.hasPrefix("unique_") })
    }

    @Test(arguments: engines)
    func theDatabaseRefusesATakenValueWithItsCode(engine: Engine) async throws {
        let place = Place(engine: engine)
        defer { place.remove() }
        try await place.with { (storage: any StorageEngine) async throws -> Void in
            let ada = try await storage.create(
                "_User", changes: sets(["username": "ada", "email": "ada@example.com", "mobilePhoneNumber": "13900000001"]))
            #expect(try await Self.uniqueIndexes(of: "_User", in: storage) == ["unique_username", "unique_email", "unique_mobilePhoneNumber"])
            for (body, code) in [
                (["username": "ada"], 202), (["username": "b", "email": "ada@example.com"], 203),
                (["username": "c", "mobilePhoneNumber": "13900000001"], 214),
            ] as [([String: JSONValue], Int)] {
                await expectDataAPIErrorAsync(code) { _ = try await storage.create("_User", changes: sets(body)) }
            }
            // No value, or an empty one, is nobody's: any number of users have none.
            for index in 0..<3 {
                _ = try await storage.create("_User", changes: sets(["username": .string("n\(index)"), "email": ""]))
            }
            // The update path too, and the object keeps what it had.
            let bob = try await storage.create("_User", changes: sets(["username": "bob"]))
            await expectDataAPIErrorAsync(202) {
                _ = try await storage.update("_User", id: bob.objectId, changes: sets(["username": "ada"]), condition: nil)
            }
            #expect(try await storage.fetch("_User", id: bob.objectId)?.fields["username"] == "bob")
            _ = try await storage.update("_User", id: ada.objectId, changes: sets(["username": "ada"]), condition: nil)

            _ = try await storage.create("_Role", changes: sets(["name": "管理员"]))
            #expect(try await Self.uniqueIndexes(of: "_Role", in: storage) == ["unique_name"])
            await expectDataAPIErrorAsync(137) { _ = try await storage.create("_Role", changes: sets(["name": "管理员"])) }
            // The database compares bytes, as identities are compared: the service normalises
            // names before they get here (a look-alike is refused there, as taken).
            _ = try await storage.create("_Role", changes: sets(["name": "管\u{F9E4}员"]))
            // Other classes have no such rule.
            for _ in 0..<2 { _ = try await storage.create("Note", changes: sets(["username": "ada", "name": "x"])) }
        }
    }

    @Test(arguments: engines)
    func aDatabaseHoldingDuplicatesStillOpensAndSaysSo(engine: Engine) async throws {
        let place = Place(engine: engine)
        defer { place.remove() }
        let ids = try await place.with { (storage: any StorageEngine) async throws -> [String] in
            let first = try await storage.create("_User", changes: sets(["username": "twice"]))
            try await place.dropUniqueIndex("username", of: "_User", in: storage)
            let second = try await storage.create("_User", changes: sets(["username": "twice"]))
            return [first.objectId, second.objectId]
        }
        let log = CapturedLog()
        try await place.with(logger: Logger(label: "unique", factory: { _ in log.handler })) { (storage: any StorageEngine) async throws -> Void in
            #expect(log.lines.contains { $0.hasPrefix("error") && $0.contains("_User.username can't get its unique index") }, "\(log.lines)")
            #expect(try await Self.uniqueIndexes(of: "_User", in: storage) == ["unique_email", "unique_mobilePhoneNumber"])
            for id in ids { #expect(try await storage.fetch("_User", id: id) != nil) }
            // The other fields are still kept unique.
            _ = try await storage.update("_User", id: ids[0], changes: sets(["email": "a@example.com"]), condition: nil)
            await expectDataAPIErrorAsync(203) {
                _ = try await storage.update("_User", id: ids[1], changes: sets(["email": "a@example.com"]), condition: nil)
            }
            try await storage.delete("_User", id: ids[1], condition: nil)
        }
        // Once the duplicate is gone, the next start makes the index.
        try await place.with { (storage: any StorageEngine) async throws -> Void in
            #expect(try await Self.uniqueIndexes(of: "_User", in: storage).contains("unique_username"))
            await expectDataAPIErrorAsync(202) { _ = try await storage.create("_User", changes: sets(["username": "twice"])) }
        }
    }
}
