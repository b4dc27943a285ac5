import DataAPI
import Foundation
import TestSupport

/// A data service of its own for one queue test: a SQLite file, or a schema of the PostgreSQL
/// test server (`FUNCTIONHOST_TEST_DATABASE_URL`); `close()` ends it and removes its files.
final class QueueTestData: Sendable {
    let data: DataService
    private let directory: String
    private let postgres: PostgresStorage?

    init() async throws {
        directory = try TestServer.makeDataDirectory()
        if let server = TestDatabase.server {
            let storage = try await PostgresStorage(location: server.inSchema(TestDatabase.schema(for: directory)))
            postgres = storage
            data = DataService(storage: storage)
        } else {
            postgres = nil
            data = DataService(sqlite: try SQLiteStorage(path: directory + "/data.sqlite"))
        }
    }

    func close() async {
        await postgres?.close()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
