import DataAPI
import Foundation
import JSON
import LiveQuery
import TestSupport
import Testing

/// A hub over a real data service on its own temporary data (a SQLite file, or a PostgreSQL
/// schema when `FUNCTIONHOST_TEST_DATABASE_URL` is set), its writes heard on a local feed and
/// the hub delivering while the test runs.
struct HubFixture: Sendable {
    let data: DataService
    let hub: LiveQueryHub
    let accounts: UserAccounts

    static func run(
        limits: LiveQueryLimits = LiveQueryLimits(), now: @escaping @Sendable () -> Date = { Date() },
        hooks: (any WriteHooks)? = nil, _ body: @Sendable (HubFixture) async throws -> Void
    ) async throws {
        let directory = try TestServer.makeDataDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let storage: any StorageEngine
        var postgres: PostgresStorage?
        if let location = TestDatabase.location(for: directory) {
            postgres = try await PostgresStorage(location: location)
            storage = postgres!
        } else {
            storage = try SQLiteStorage(path: directory + "/data.sqlite")
        }
        let feed = LocalChangeFeed()
        var data = DataService(storage: storage)
        data.hooks = hooks
        data.listeners = [ChangeFeedPublisher(feed: feed)]
        let hub = LiveQueryHub(data: data, feed: feed, limits: limits, now: now)
        let fixture = HubFixture(
            data: data, hub: hub, accounts: UserAccounts(data: data, codeSecret: .init(masterKey: "master")))
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await hub.run() }
                try await body(fixture)
                feed.finish()
                try await group.waitForAll()
            }
        } catch {
            await postgres?.close()
            throw error
        }
        await postgres?.close()
    }

    /// A new user, and a caller acting as it.
    func user(_ name: String) async throws -> Caller {
        let user = try await data.create("_User", body: ["username": .string(name), "password": "secret-1"], caller: Caller(isMaster: false))
        return Caller(isMaster: false, user: .object(user.restJSON()))
    }

    /// Subscribes `caller` to a query of `className` with `where`, under `id`; the query id.
    func subscribe(
        _ className: String, where condition: JSONValue = [:], id: String = "livequery-test", extra: [String: JSONValue] = [:],
        as caller: Caller = Caller(isMaster: false)
    ) async throws -> String {
        var query: [String: JSONValue] = ["className": .string(className), "where": condition]
        for (key, value) in extra { query[key] = value }
        return try await hub.subscribe(id: id, query: .object(query), caller: caller).queryID
    }

    /// A connection logged in with `id`.
    func connect(_ id: String = "livequery-test", capacity: Int = .max) async -> RecordingSink {
        let sink = RecordingSink(capacity: capacity)
        let attached = await hub.attach(sink, subscriptionID: id)
        #expect(attached)
        return sink
    }

    static let anyone = Caller(isMaster: false)
    static let master = Caller(isMaster: true)
}

/// The error a call threw, as a data API error.
func dataError(_ body: () async throws -> Void) async -> DataAPIError? {
    do {
        try await body()
        return nil
    } catch let error as DataAPIError {
        return error
    } catch {
        return DataAPIError(.storageFailure, "\(error)")
    }
}
