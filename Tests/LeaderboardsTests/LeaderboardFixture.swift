import DataAPI
import Foundation
import JSON
import Leaderboards
import Logging
import Synchronization
import TestSupport

/// One test's database and clock: a SQLite file of its own, or a schema of the PostgreSQL test
/// server (`FUNCTIONHOST_TEST_DATABASE_URL`). Each `leaderboards()` opens its own engine on that
/// database, as another host would, and they share the clock, which the test moves by hand.
final class LeaderboardFixture: Sendable {
    private let time = Mutex<Date>(Date(timeIntervalSince1970: 1_800_000_000))  // 2027-01-15T08:00:00Z, a Friday
    private let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fh-board-\(UUID().uuidString)")
    private let schema = "lb_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    private let postgres = Mutex<[PostgresStorage]>([])
    private let sqlite = Mutex<DataService?>(nil)

    static let master = Caller(isMaster: true)
    static let client = Caller(isMaster: false)

    /// Runs `body` with a fresh fixture, closing its engines and removing its files after.
    static func run(_ body: (LeaderboardFixture) async throws -> Void) async throws {
        let fixture = LeaderboardFixture()
        do {
            try await body(fixture)
        } catch {
            await fixture.close()
            throw error
        }
        await fixture.close()
    }

    /// The clock's time.
    var now: Date { time.withLock { $0 } }

    /// Sets the clock.
    func set(_ date: Date) { time.withLock { $0 = date } }

    /// A data service on this test's database: a new engine on PostgreSQL (another host), the
    /// one SQLite engine otherwise (SQLite's writers are one process's).
    func data() async throws -> DataService {
        if let server = TestDatabase.server {
            let storage = try await PostgresStorage(location: server.inSchema(schema))
            postgres.withLock { $0.append(storage) }
            return DataService(storage: storage)
        }
        if let data = sqlite.withLock({ $0 }) { return data }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let data = DataService(sqlite: try SQLiteStorage(path: directory.appendingPathComponent("board.sqlite").path))
        sqlite.withLock { $0 = data }
        return data
    }

    /// A host's leaderboards on this test's database, on the fixture's clock.
    func leaderboards(data: DataService? = nil, masterKeyOnly: Bool = false) async throws -> Leaderboards {
        let service: DataService
        if let data { service = data } else { service = try await self.data() }
        return Leaderboards(
            data: service, logger: Logger(label: "test.leaderboards"), now: { [self] in self.now },
            masterKeyOnlyStatistics: masterKeyOnly)
    }

    /// A new user; answers the caller signed in as it.
    func user(_ name: String, data: DataService) async throws -> Caller {
        let user = try await data.create("_User", body: ["username": .string(name), "password": .string("secret-\(name)")], caller: Self.master)
        return Caller(isMaster: false, user: ["objectId": .string(user.objectId), "username": .string(name)])
    }

    func close() async {
        for storage in postgres.withLock({ $0 }) { await storage.close() }
        try? FileManager.default.removeItem(at: directory)
    }
}

extension Leaderboards {
    /// Creates a board with the master key.
    @discardableResult
    func make(
        _ name: String, memberType: String = "_Entity", order: String = "descending", strategy: String = "better",
        interval: String = "never"
    ) async throws -> Leaderboard {
        try await create(
            [
                "statisticName": .string(name), "memberType": .string(memberType), "order": .string(order),
                "updateStrategy": .string(strategy), "versionChangeInterval": .string(interval),
            ], caller: LeaderboardFixture.master)
    }

    /// Writes one value for an entity with the master key; answers the value kept.
    @discardableResult
    func put(_ name: String, _ entity: String, _ value: Double, overwrite: Bool = false) async throws -> JSONValue? {
        let results = try await updateStatistics(
            .entity, id: entity, [["statisticName": .string(name), "statisticValue": .double(value)]], overwrite: overwrite,
            caller: LeaderboardFixture.master)
        return results.first?["statisticValue"]
    }

    /// The whole board, as (member, value, rank).
    func all(_ name: String, version: Int? = nil) async throws -> [(String, Double, Int)] {
        var options = RankOptions()
        options.limit = LeaderboardInput.maxLimit
        options.version = version
        return try await rankings(name, options: options, caller: LeaderboardFixture.client).results.map {
            ($0["entity"]?.stringValue ?? $0["user"]?["objectId"]?.stringValue ?? "", $0["statisticValue"]?.doubleValue ?? .nan,
             Int($0["rank"]?.intValue ?? -1))
        }
    }
}
