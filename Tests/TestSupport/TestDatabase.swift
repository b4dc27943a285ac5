package import DataAPI
package import Foundation
import JSON

/// Which engine the end-to-end tests run on: SQLite under each test's data directory, or, when
/// `FUNCTIONHOST_TEST_DATABASE_URL` names a PostgreSQL server (`make test` starts one for its
/// second pass), a schema of that database per data directory.
package enum TestDatabase {
    /// The PostgreSQL server the tests use; nil runs them on SQLite.
    package static let server: PostgresLocation? = ProcessInfo.processInfo.environment["FUNCTIONHOST_TEST_DATABASE_URL"]
        .flatMap { $0.isEmpty ? nil : PostgresLocation(url: $0) }

    /// Whether the tests run on PostgreSQL.
    package static var isPostgres: Bool { server != nil }

    /// The database of a data directory: the same directory always gets the same schema, so a
    /// test that restarts its server on its directory finds its data again.
    package static func location(for dataDirectory: String) -> PostgresLocation? {
        server?.inSchema(schema(for: dataDirectory))
    }

    /// A schema name derived from a path (FNV-1a, 64 bits, in hex).
    package static func schema(for path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "t_" + String(hash, radix: 16)
    }

    /// What the database of a data directory holds, as bytes to search: the SQLite file and its
    /// write-ahead log, or the stored documents of `classes` in PostgreSQL.
    package static func storedBytes(dataDirectory: String, classes: [String]) async throws -> Data {
        guard let location = location(for: dataDirectory) else {
            var bytes = Data()
            for suffix in ["", "-wal"] {
                bytes += (try? Data(contentsOf: URL(fileURLWithPath: dataDirectory + "/functionhost.sqlite" + suffix))) ?? Data()
            }
            return bytes
        }
        let storage = try await PostgresStorage(location: location)
        var bytes = Data()
        do {
            for name in classes {
                for object in try await storage.scan(name, predicate: nil, after: nil, limit: 1000) {
                    bytes += Data(JSONValue.object(object.fields).jsonBytes)
                }
            }
        } catch {
            await storage.close()
            throw error
        }
        await storage.close()
        return bytes
    }
}
