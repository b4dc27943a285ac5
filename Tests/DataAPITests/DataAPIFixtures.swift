import Foundation
import JSON
import Testing

@testable import DataAPI

/// A fresh SQLite file under the temporary directory, removed (with its WAL and SHM files) when
/// the value is released. Each suite instance (one per test) owns its own.
final class SQLiteTestDatabase: Sendable {
    let path: String
    let storage: SQLiteStorage
    let service: DataService

    init() throws {
        path = Self.makePath()
        storage = try SQLiteStorage(path: path)
        service = DataService(sqlite: storage)
    }

    /// A new unique database path; nothing exists there yet.
    static func makePath() -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("DataAPITests-\(UUID().uuidString).sqlite").path
    }

    /// Another engine on the same file, as a restarted process would open it.
    func reopen() throws -> SQLiteStorage {
        try SQLiteStorage(path: path)
    }

    deinit {
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}

/// A normalizer that knows exactly the given classes (plus none of the system ones unless listed).
func normalizer(knowing classes: Set<String> = []) -> ValueNormalizer {
    ValueNormalizer(classExists: { classes.contains($0) })
}

/// Parses a request body, as the REST layer would hand it to `ObjectChanges`.
func changes(_ body: [String: JSONValue], knowing classes: Set<String> = []) throws -> ObjectChanges {
    try ObjectChanges(body: body, normalizer: normalizer(knowing: classes))
}

/// Shorthand for changes that set plain values, bypassing the pointer-class check.
func sets(_ fields: [String: JSONValue]) -> ObjectChanges {
    ObjectChanges(fields: fields.mapValues { FieldChange.set($0) })
}

/// A `where` condition from its JSON text.
func predicate(_ text: String) throws -> QueryPredicate {
    try QueryPredicate(where: JSONValue(parsing: text))
}

/// Expects `body` to throw a `DataAPIError` with the LeanCloud `code`.
@discardableResult
func expectDataAPIError(
    _ code: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> DataAPIError? {
    let error = #expect(throws: DataAPIError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.code.rawValue == code, "wrong code: \(String(describing: error))", sourceLocation: sourceLocation)
    return error
}

/// Expects `body` to throw a `DataAPIError` with the LeanCloud `code`.
@discardableResult
func expectDataAPIErrorAsync(
    _ code: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> DataAPIError? {
    let error = await #expect(throws: DataAPIError.self, sourceLocation: sourceLocation) { try await body() }
    #expect(error?.code.rawValue == code, "wrong code: \(String(describing: error))", sourceLocation: sourceLocation)
    return error
}
